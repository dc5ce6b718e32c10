import './instrument';
import { runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { serviceConfig } from './config';
import { serviceHandlers } from './grpc/handlers';

void runService<types.kyc.KycServiceHandlers>({
  name: 'kyc',
  extraConfig: serviceConfig,
  async setup() {
    return { handlers: serviceHandlers() };
  },
});
