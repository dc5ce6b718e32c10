import Stripe from 'stripe';
import type { StripeApiSettings, StripeRegion } from './config';

/**
 * The API version the connector speaks, set explicitly rather than left to the library's default:
 * it is the version stripe-node 22.6.x pins and the one stripe-mock v0.203.0 embeds (its contract tests).
 */
export const STRIPE_API_VERSION = '2026-08-26.dahlia' as const;

/** Stripe's library configured for the platform: its timeout, its own retries (same idempotency key). */
export function stripeClient(settings: StripeApiSettings): Stripe {
  return new Stripe(settings.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    timeout: settings.timeoutMs,
    maxNetworkRetries: settings.maxNetworkRetries,
    host: settings.api.host,
    port: settings.api.port,
    protocol: settings.api.protocol,
    // No request telemetry headers to Stripe about our earlier calls.
    telemetry: false,
    appInfo: { name: 'partner-payments-platform' },
  });
}

/** A client per region's platform account: one shared while the EU region has no account of its own. */
export function stripeClients(regions: Record<StripeRegion, StripeApiSettings>): Record<StripeRegion, Stripe> {
  const us = stripeClient(regions.US);
  return { US: us, EU: regions.EU === regions.US ? us : stripeClient(regions.EU) };
}

/** Stripe's webhook signature check (no key needed), for verifying inbound events. */
export function stripeWebhooks(): Stripe['webhooks'] {
  return Stripe.webhooks;
}
