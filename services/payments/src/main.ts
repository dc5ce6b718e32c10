import './instrument';
import { runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { serviceConfig } from './config';
import { ledgerMetrics } from './events/metrics';
import { serviceHandlers } from './grpc/handlers';

void runService<types.payments.PaymentsServiceHandlers>({
  name: 'payments',
  extraConfig: serviceConfig,
  async setup({ metrics }) {
    // Registered now so dashboards see the series; the ledger consumer will record into them.
    ledgerMetrics(metrics.registry);
    return { handlers: serviceHandlers() };
  },
});
