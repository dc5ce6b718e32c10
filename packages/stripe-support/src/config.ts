import { Type, type Static } from '@sinclair/typebox';

const SECRET_KEY = '^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,240}$';

/**
 * How every service reaches Stripe's API (read with the rest of its config). Without a secret key the
 * connector is off and live requests needing it answer GATEWAY_NOT_CONFIGURED. A `sk_test_…` key in
 * live mode is allowed: that is how a staging install runs against Stripe's test mode.
 */
export const stripeApiConfig = Type.Object({
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ pattern: SECRET_KEY })),
  /**
   * The EU platform account's key, for connected accounts in the EU region (their onboarding, balance,
   * deletion and transfers); without it the EU region uses the one platform account above.
   */
  STRIPE_EU_SECRET_KEY: Type.Optional(Type.String({ pattern: SECRET_KEY })),
  /** Where the API is (tests: stripe-mock on loopback). */
  STRIPE_API_BASE: Type.String({ default: 'https://api.stripe.com', pattern: '^https?://[^/?#]+/?$' }),
  /** Per attempt; with the retries it stays under the caller's deadline so the breaker's timeout is the last word. */
  STRIPE_TIMEOUT_MS: Type.Integer({ default: 4_000, minimum: 100, maximum: 60_000 }),
  /** The library's own retries of connection errors, 409s, 429s and 5xx (same idempotency key). */
  STRIPE_MAX_NETWORK_RETRIES: Type.Integer({ default: 1, minimum: 0, maximum: 5 }),
});

export type StripeApiConfig = Static<typeof stripeApiConfig>;

/** The platform accounts connected accounts live under (spec 4.9 `gateway_region`). */
export type StripeRegion = 'US' | 'EU';

export interface StripeApiSettings {
  secretKey: string;
  api: { host: string; port: number; protocol: 'http' | 'https' };
  timeoutMs: number;
  maxNetworkRetries: number;
}

export const isTestKey = (key: string) => key.startsWith('sk_test_') || key.startsWith('rk_test_');

/**
 * The API settings of each region's platform account, or null when Stripe is not configured. The EU
 * region falls back to the one account when it has no key of its own. An EU key without the main one,
 * or one test key beside one live key, is refused at boot; problems never quote a key.
 */
export function stripeApiSettings(config: StripeApiConfig): Record<StripeRegion, StripeApiSettings> | null {
  if (!config.STRIPE_SECRET_KEY) {
    if (config.STRIPE_EU_SECRET_KEY)
      throw new Error('Invalid Stripe configuration: STRIPE_EU_SECRET_KEY needs STRIPE_SECRET_KEY');
    return null;
  }
  const eu = config.STRIPE_EU_SECRET_KEY;
  if (eu && isTestKey(eu) !== isTestKey(config.STRIPE_SECRET_KEY)) {
    throw new Error(
      'Invalid Stripe configuration: STRIPE_EU_SECRET_KEY and STRIPE_SECRET_KEY must both be test keys or both live keys',
    );
  }
  const base = new URL(config.STRIPE_API_BASE);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  const us: StripeApiSettings = {
    secretKey: config.STRIPE_SECRET_KEY,
    api: { host: base.hostname, port: base.port ? Number(base.port) : protocol === 'http' ? 80 : 443, protocol },
    timeoutMs: config.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
  };
  return { US: us, EU: eu ? { ...us, secretKey: eu } : us };
}
