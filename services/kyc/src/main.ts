import './instrument';
import { parsePreviousKeys, SecretBox } from '@ppay/kernel';
import { ensureIndexes, OutboxRelay, runService } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { kycCaseModel, MongoKycCaseRepository } from './cases/kyc-case.repo';
import { KycReviewService } from './cases/kyc-reviews';
import { ReencryptionJob } from './cases/reencryption';
import { kycReviewHandlers } from './cases/kyc-reviews.handlers';
import { reviewQueueMetrics } from './cases/review-queue.metrics';
import { serviceConfig } from './config';
import { ConnectedAccountStatusService } from './gateway-accounts/account-status';
import { accountStatusHandlers } from './gateway-accounts/account-status.handlers';
import { GatewayAccountService } from './gateway-accounts/gateway-accounts';
import { gatewayAccountHandlers } from './gateway-accounts/gateway-accounts.handlers';
import { stripeConnect } from './connect/stripe-connect.adapter';
import { connectedAccountStatusMetrics, kycMetrics, reencryptionMetrics } from './kyc.metrics';
import { GrpcSubMerchantDirectory } from './marketplace-directory.adapter';
import { MERCHANT_DATA } from './merchant-data.repo';
import { HostedOnboardingService } from './onboarding/hosted-onboarding';
import { onboardingHandlers } from './onboarding/onboarding.handlers';
import { SandboxConnectedAccountProvider } from './onboarding/sandbox-connected-accounts.adapter';
import { BankDirectory } from './payout-accounts/banks';
import { PayoutAccountService } from './payout-accounts/payout-accounts';
import { payoutAccountHandlers } from './payout-accounts/payout-accounts.handlers';
import { KycSubmissionService, submissionRoutes } from './submissions/kyc-submissions';
import { SandboxNameEnquiry } from './submissions/sandbox-name-enquiry.adapter';
import { submissionHandlers } from './submissions/submissions.handlers';

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
      parsePreviousKeys(config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    );
    const deps = { cases, directory, sealer, banks, metrics: kycMetrics(metrics.registry) };
    const linkTtl = { linkTtlMs: config.ONBOARDING_LINK_TTL_MS };
    // Live is Stripe Connect when configured; without it live answers GATEWAY_NOT_CONFIGURED.
    const live = stripeConnect(config, metrics.registry, {
      timeoutMs: config.PROCESSOR_TIMEOUT_MS,
      resetTimeoutMs: 30_000,
    });
    const providers = { sandbox: new SandboxConnectedAccountProvider(), ...(live ? { live } : {}) };
    // Sandbox only as well: no live name-enquiry provider is configured, so live in-house submissions
    // and live payout account number changes all go to manual review (docs/decisions.md H2-6, H3-2).
    const nameEnquiry = { sandbox: new SandboxNameEnquiry() };
    const routes = submissionRoutes({ ...deps, providers, nameEnquiry }, linkTtl);

    // Moves sealed values to the current key (and seals personal data stored in clear before it was sealed).
    const reencryption = new ReencryptionJob({ cases, ring: sealer, metrics: reencryptionMetrics(metrics.registry) });
    const reviewQueue = reviewQueueMetrics(metrics.registry, cases);
    // Set once at boot so the gauges exist before the first interval (dashboards, alert rule).
    await reviewQueue.refresh().catch((err: unknown) => log.warn({ err }, 'review queue metrics failed'));

    return {
      handlers: {
        ...submissionHandlers(new KycSubmissionService({ ...deps, routes })),
        ...kycReviewHandlers(new KycReviewService(deps)),
        ...onboardingHandlers(new HostedOnboardingService({ ...deps, providers })),
        ...payoutAccountHandlers(new PayoutAccountService({ ...deps, nameEnquiry, providers }, linkTtl)),
        ...gatewayAccountHandlers(new GatewayAccountService({ cases, providers })),
        ...accountStatusHandlers(
          new ConnectedAccountStatusService({ cases, changed: connectedAccountStatusMetrics(metrics.registry) }),
        ),
      },
      relays: [relay],
      merchantData: { targets: MERCHANT_DATA },
      jobs: [
        { name: 'review-queue-metrics', intervalMs: config.REVIEW_QUEUE_METRICS_INTERVAL_MS, run: reviewQueue.refresh },
        { name: 'kyc-reencryption', intervalMs: config.REENCRYPT_INTERVAL_MS, run: () => reencryption.run() },
      ],
      onShutdown: async () => directory.close(),
    };
  },
});
