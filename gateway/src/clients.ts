import type * as grpc from '@grpc/grpc-js';
import { type ComponentName } from '@ppay/kernel';
import {
  grpcAddrEnvVar,
  ServiceClient,
  type BreakerOptions,
  type ClientConstructor,
  type PlatformMetrics,
} from '@ppay/runtime';
import { loadPlatformProto } from '@ppay/proto';
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
  const client = <C extends grpc.Client>(name: ComponentName, ctor: ClientConstructor<C>) =>
    new ServiceClient<C>(name, ctor, String(config[grpcAddrEnvVar(name)]), {
      deadlineMs: config.GRPC_DEADLINE_MS,
      breaker,
      metrics,
    });
  return {
    payments: client('payments', proto.payments.v1.PaymentsService),
    fxPricing: client('fx-pricing', proto.fxpricing.v1.FxPricingService),
    subscriptions: client('subscriptions', proto.subscriptions.v1.SubscriptionsService),
    marketplace: client('marketplace', proto.marketplace.v1.MarketplaceService),
    kyc: client('kyc', proto.kyc.v1.KycService),
    webhooks: client('webhooks', proto.webhooks.v1.WebhooksService),
  };
}

export type Clients = ReturnType<typeof createClients>;
