import './instrument';
import { ensureIndexes, runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { GrpcFxConverter, GrpcSplitResolver } from './adapters/platform-clients';
import { StaticGatewayRegistry } from './adapters/sandbox-gateways';
import { paymentsConfig } from './config';
import { ChargeService } from './domain/charges';
import { DEFAULT_FEE_SCHEDULE, type FeeSchedule } from './domain/fees';
import { ledgerMetrics } from './events/metrics';
import { merchantProjectionConsumer } from './events/merchant-projection';
import { paymentsHandlers } from './grpc/handlers';
import { chargeModel, MongoChargeRepository } from './repo/charge-repo';
import { merchantProfileModel, ProjectedMerchantDirectory } from './repo/merchant-directory';

void runService<types.payments.PaymentsServiceHandlers, (typeof paymentsConfig)['properties']>({
  name: 'payments',
  extraConfig: paymentsConfig,
  async setup({ config, mongo, metrics }) {
    // Registered now so dashboards see the series; the ledger consumer will record into them.
    ledgerMetrics(metrics.registry);
    const charges = chargeModel(mongo);
    const profiles = merchantProfileModel(mongo);
    await ensureIndexes([charges, profiles]);
    const directory = new ProjectedMerchantDirectory(profiles, config.MERCHANT_EVENT_WAIT_MS);
    const fx = new GrpcFxConverter(config.FX_PRICING_GRPC_ADDR, metrics);
    const splits = new GrpcSplitResolver(config.MARKETPLACE_GRPC_ADDR, metrics);
    const feeSchedule = config.FEE_SCHEDULE_JSON
      ? (JSON.parse(config.FEE_SCHEDULE_JSON) as FeeSchedule)
      : DEFAULT_FEE_SCHEDULE;
    const service = new ChargeService(
      {
        merchants: directory,
        fx,
        splits,
        gateways: new StaticGatewayRegistry({
          timeoutMs: config.GATEWAY_TIMEOUT_MS,
          resetTimeoutMs: 30_000,
          cardPublishableKey: config.CARD_PUBLISHABLE_KEY,
        }),
        charges: new MongoChargeRepository(charges),
      },
      { feeSchedule, tolerance: config.AMOUNT_TOLERANCE },
    );
    return {
      handlers: paymentsHandlers(service),
      consumers: [merchantProjectionConsumer(directory)],
      onShutdown: async () => {
        fx.close();
        splits.close();
      },
    };
  },
});
