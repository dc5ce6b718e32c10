import './instrument';
import { SecretBox } from '@ppay/kernel';
import {
  ensureIndexes,
  merchantDeletionConsumer,
  tombstoneSweepJob,
  MerchantTombstones,
  OutboxRelay,
  runService,
} from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { GrpcSubMerchantDirectory } from './marketplace-directory.adapter';
import { kycMetrics } from './kyc.metrics';
import { SandboxConnectedAccountProvider } from './onboarding/sandbox-connected-accounts.adapter';
import { serviceConfig } from './config';
import { BankDirectory } from './payout-accounts/banks';
import { GatewayAccountService } from './gateway-accounts/gateway-accounts';
import { KycService } from './submissions/kyc-submissions';
import { PayoutService } from './payout-accounts/payout-accounts';
import { kycHandlers } from './submissions/submissions.handlers';
import { kycCaseModel, MongoKycCaseRepository } from './cases/kyc-case.repo';
import { MERCHANT_DATA } from './merchant-data.repo';

void runService<types.kyc.KycServiceHandlers, (typeof serviceConfig)['properties']>({
  name: 'kyc',
  extraConfig: serviceConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    // A bad bundled dataset stops the service here rather than answering with a half-valid list.
    const banks = BankDirectory.bundled();
    const model = kycCaseModel(mongo);
    await ensureIndexes([model]);
    const relay = new OutboxRelay(model, nats, log, metrics);
    const cases = new MongoKycCaseRepository(model, (id) => relay.relaySoon(id));
    const directory = new GrpcSubMerchantDirectory(config.MARKETPLACE_GRPC_ADDR, metrics);
    const sealer = new SecretBox(
      Buffer.from(config.SECRETS_ENCRYPTION_KEY, 'base64'),
      config.SECRETS_ENCRYPTION_KEY_ID,
    );
    const counters = kycMetrics(metrics.registry);
    const linkTtlMs = config.ONBOARDING_LINK_TTL_MS;
    // Sandbox only: no live connected-account gateway exists yet (live answers GATEWAY_NOT_CONFIGURED).
    const providers = { sandbox: new SandboxConnectedAccountProvider() };
    const kyc = new KycService({ cases, directory, providers, sealer, banks, metrics: counters }, { linkTtlMs });
    const payouts = new PayoutService({ cases, directory, sealer, banks, metrics: counters }, { linkTtlMs });

    const refreshQueue = async () => {
      for (const mode of ['live', 'sandbox'] as const) {
        const { count, oldest } = await cases.queueStats(mode);
        counters.queue(mode, count, oldest, new Date());
      }
    };
    // Set once at boot so the gauges exist before the first interval (dashboards, alert rule).
    await refreshQueue().catch((err: unknown) => log.warn({ err }, 'review queue metrics failed'));

    return {
      handlers: kycHandlers(kyc, payouts, new GatewayAccountService({ cases, providers })),
      relays: [relay],
      consumers: [
        merchantDeletionConsumer({
          service: 'kyc',
          conn: mongo,
          nats,
          targets: MERCHANT_DATA,
          tombstones: new MerchantTombstones(mongo),
          log,
        }),
      ],
      jobs: [
        tombstoneSweepJob(mongo, MERCHANT_DATA),
        { name: 'review-queue-metrics', intervalMs: config.REVIEW_QUEUE_METRICS_INTERVAL_MS, run: refreshQueue },
      ],
      onShutdown: async () => directory.close(),
    };
  },
});
