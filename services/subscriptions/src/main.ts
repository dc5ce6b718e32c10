import './instrument';
import { runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { serviceConfig } from './config';
import { serviceHandlers } from './grpc/handlers';

void runService<types.subscriptions.SubscriptionsServiceHandlers>({
  name: 'subscriptions',
  extraConfig: serviceConfig,
  async setup() {
    return { handlers: serviceHandlers() };
  },
});
