import type * as grpc from '@grpc/grpc-js';
import { type ComponentName, type Mode } from '@ppay/kernel';
import {
  grpcAddrEnvVar,
  ServiceClient,
  type BreakerOptions,
  type ClientConstructor,
  type PlatformMetrics,
} from '@ppay/runtime';
import { loadPlatformProto } from '@ppay/proto';
import type { ApiKeyPrincipal } from './auth/api-key-cache';
import type { GatewayConfig } from './config';

/**
 * Methods whose work grows with one tenant's data or waits on its receiver: a deadline they miss is
 * that request's, so it never opens the breaker the service's other callers share (ServiceClient).
 */
const TENANT_SIZED: Partial<Record<ComponentName, readonly string[]>> = {
  webhooks: [
    'ListEvents',
    'GetEvent',
    'ResendEvent',
    'ListEventAttempts',
    'GetEventAttempt',
    'RecoverDeliveries',
    'PollEvents',
    'TestWebhook',
  ],
  subscriptions: ['AdvanceSandboxClock'],
  marketplace: ['DeleteMerchant'],
};

/**
 * One client per service for the life of the process, each behind its own breaker; API-key
 * authentication has a client, a connection and a breaker of its own, so nothing a tenant does with
 * its events can turn every other merchant's uncached key into a 503.
 */
export function createClients(config: GatewayConfig, metrics: PlatformMetrics) {
  const proto = loadPlatformProto().ppay;
  const breaker: BreakerOptions = {
    errorThresholdPercentage: config.BREAKER_ERROR_THRESHOLD_PERCENT,
    resetTimeoutMs: config.BREAKER_RESET_TIMEOUT_MS,
    rollingCountTimeoutMs: config.BREAKER_ROLLING_WINDOW_MS,
    volumeThreshold: config.BREAKER_VOLUME_THRESHOLD,
  };
  const client = <C extends grpc.Client>(name: ComponentName, ctor: ClientConstructor<C>, label: string = name) =>
    new ServiceClient<C>(label, ctor, String(config[grpcAddrEnvVar(name)]), {
      deadlineMs: config.GRPC_DEADLINE_MS,
      breaker,
      metrics,
      tenantSizedMethods: TENANT_SIZED[name],
      // Its own HTTP/2 connection (grpc-js shares one per address otherwise).
      channelOptions: label === name ? {} : { 'grpc.use_local_subchannel_pool': 1 },
    });
  return {
    payments: client('payments', proto.payments.v1.PaymentsService),
    fxPricing: client('fx-pricing', proto.fxpricing.v1.FxPricingService),
    subscriptions: client('subscriptions', proto.subscriptions.v1.SubscriptionsService),
    marketplace: client('marketplace', proto.marketplace.v1.MarketplaceService),
    kyc: client('kyc', proto.kyc.v1.KycService),
    webhooks: client('webhooks', proto.webhooks.v1.WebhooksService),
    /** AuthenticateApiKey only (the API-key cache's lookups). */
    authentication: client('webhooks', proto.webhooks.v1.WebhooksService, 'webhooks-auth'),
  };
}

export type Clients = ReturnType<typeof createClients>;

/** The API-key cache's lookup: on the authentication client, never the one tenant-sized calls share. */
export function apiKeyLookup(clients: Pick<Clients, 'authentication'>) {
  return async (apiKey: string): Promise<ApiKeyPrincipal> => {
    const p = await clients.authentication.call('AuthenticateApiKey', { api_key: apiKey });
    return { keyId: p.key_id, merchantId: p.merchant_id, mode: p.mode as Mode, apiVersion: p.api_version };
  };
}
