import { grpcAddrEnvVar, ServiceClient, type BreakerOptions, type PlatformMetrics } from '@ppay/kernel';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { GatewayConfig } from './config';

/** One client per service for the life of the process, each behind its own breaker. */
export function createClients(config: GatewayConfig, metrics: PlatformMetrics) {
  const proto = loadPlatformProto().ppay;
  const breaker: BreakerOptions = {
    errorThresholdPercentage: config.BREAKER_ERROR_THRESHOLD_PERCENT,
    resetTimeoutMs: config.BREAKER_RESET_TIMEOUT_MS,
    rollingCountTimeoutMs: config.BREAKER_ROLLING_WINDOW_MS,
    volumeThreshold: config.BREAKER_VOLUME_THRESHOLD,
  };
  const options = { deadlineMs: config.GRPC_DEADLINE_MS, breaker, metrics };
  const addr = (name: Parameters<typeof grpcAddrEnvVar>[0]) => String(config[grpcAddrEnvVar(name)]);
  return {
    payments: new ServiceClient<types.payments.PaymentsServiceClient>(
      'payments',
      proto.payments.v1.PaymentsService,
      addr('payments'),
      options,
    ),
    fxPricing: new ServiceClient<types.fxpricing.FxPricingServiceClient>(
      'fx-pricing',
      proto.fxpricing.v1.FxPricingService,
      addr('fx-pricing'),
      options,
    ),
    subscriptions: new ServiceClient<types.subscriptions.SubscriptionsServiceClient>(
      'subscriptions',
      proto.subscriptions.v1.SubscriptionsService,
      addr('subscriptions'),
      options,
    ),
    marketplace: new ServiceClient<types.marketplace.MarketplaceServiceClient>(
      'marketplace',
      proto.marketplace.v1.MarketplaceService,
      addr('marketplace'),
      options,
    ),
    kyc: new ServiceClient<types.kyc.KycServiceClient>('kyc', proto.kyc.v1.KycService, addr('kyc'), options),
    webhooks: new ServiceClient<types.webhooks.WebhooksServiceClient>(
      'webhooks',
      proto.webhooks.v1.WebhooksService,
      addr('webhooks'),
      options,
    ),
  };
}

export type Clients = ReturnType<typeof createClients>;
