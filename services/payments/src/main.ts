import './instrument';
import { ensureIndexes, OutboxRelay, runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { GrpcFxConverter, GrpcSplitResolver } from './adapters/platform-clients';
import { StaticGatewayRegistry } from './adapters/sandbox-gateways';
import { paymentsConfig } from './config';
import { ChargeService } from './domain/charges';
import { DEFAULT_FEE_SCHEDULE, type FeeSchedule } from './domain/fees';
import { ledgerMetrics } from './events/metrics';
import { ledgerConsumer } from './events/ledger-consumer';
import { merchantProjectionConsumer } from './events/merchant-projection';
import { OutcomeService } from './domain/outcomes';
import { ledgerModel, MongoLedgerRepository } from './repo/ledger-repo';
import { paymentsHandlers } from './grpc/handlers';
import { chargeModel, MongoChargeRepository } from './repo/charge-repo';
import { merchantProfileModel, ProjectedMerchantDirectory } from './repo/merchant-directory';

void runService<types.payments.PaymentsServiceHandlers, (typeof paymentsConfig)['properties']>({
  name: 'payments',
  extraConfig: paymentsConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const ledgerCounters = ledgerMetrics(metrics.registry);
    const charges = chargeModel(mongo);
    const profiles = merchantProfileModel(mongo);
    const entries = ledgerModel(mongo);
    await ensureIndexes([charges, profiles, entries]);
    const relay = new OutboxRelay(charges, nats, log, metrics);
    const chargeRepo = new MongoChargeRepository(charges, (id) => relay.relaySoon(id));
    const ledger = new MongoLedgerRepository(entries);
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
        charges: chargeRepo,
      },
      { feeSchedule, tolerance: config.AMOUNT_TOLERANCE },
    );
    return {
      handlers: paymentsHandlers(service, new OutcomeService(chargeRepo), ledger),
      consumers: [merchantProjectionConsumer(directory), ledgerConsumer(ledger, splits, ledgerCounters)],
      relays: [relay],
      onShutdown: async () => {
        fx.close();
        splits.close();
      },
    };
  },
});
