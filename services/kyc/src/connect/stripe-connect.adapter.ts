import type { Registry } from 'prom-client';
import { ProcessorGuard } from '@ppay/runtime';
import { stripeApiSettings, stripeClients, stripeMetrics, type StripeApiConfig } from '@ppay/stripe-support';
import { StripeConnectedAccounts } from './stripe-connected-accounts.adapter';

/**
 * The live connected-account gateway as kyc plugs it in, or null without STRIPE_SECRET_KEY (live
 * connected-account submissions then answer GATEWAY_NOT_CONFIGURED). A bad configuration throws at boot.
 */
export function stripeConnect(
  config: StripeApiConfig,
  registry: Registry,
  breaker: { timeoutMs: number; resetTimeoutMs: number },
): StripeConnectedAccounts | null {
  // Registered either way: the dashboards and alerts name them (an unconfigured install shows zero).
  const observer = stripeMetrics(registry);
  const regions = stripeApiSettings(config);
  if (!regions) return null;
  const clients = stripeClients(regions);
  const publishableKeys = { US: regions.US.publishableKey, EU: regions.EU.publishableKey };
  return new StripeConnectedAccounts(clients, publishableKeys, observer, new ProcessorGuard('stripe_connect', breaker));
}
