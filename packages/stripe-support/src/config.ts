import { Type, type Static } from '@sinclair/typebox';

const SECRET_KEY = '^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,240}$';
const PUBLISHABLE_KEY = '^pk_(test|live)_[A-Za-z0-9_]{8,240}$';

/**
 * How every service reaches Stripe's API (read with the rest of its config). Without a secret key the
 * connector is off and live requests needing it answer GATEWAY_NOT_CONFIGURED. A `sk_test_…` key in
 * live mode is allowed: that is how a staging install runs against Stripe's test mode.
 */
export const stripeApiConfig = Type.Object({
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ pattern: SECRET_KEY })),
  /** Handed to partners for Stripe's embedded forms and components (not a secret); required with the key. */
  STRIPE_PUBLISHABLE_KEY: Type.Optional(Type.String({ pattern: PUBLISHABLE_KEY })),
  /**
   * The EU platform account's key, for connected accounts in the EU region (their onboarding, balance,
   * deletion and transfers); without it the EU region uses the one platform account above.
   */
  STRIPE_EU_SECRET_KEY: Type.Optional(Type.String({ pattern: SECRET_KEY })),
  /** The EU platform account's publishable key (embedded onboarding of EU accounts); required with its key. */
  STRIPE_EU_PUBLISHABLE_KEY: Type.Optional(Type.String({ pattern: PUBLISHABLE_KEY })),
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
  publishableKey: string;
  api: { host: string; port: number; protocol: 'http' | 'https' };
  timeoutMs: number;
  maxNetworkRetries: number;
}

export const isTestKey = (key: string) => key.startsWith('sk_test_') || key.startsWith('rk_test_');

/**
 * The API settings of each region's platform account (null when Stripe is not configured), and what is
 * wrong with the configuration. The EU region falls back to the one account when it has no key of its
 * own. Each secret key needs its publishable key of the same mode; an EU key needs the main one, and
 * one test key beside one live key is refused. Problems never quote a key.
 */
export function readStripeApi(config: StripeApiConfig): {
  regions: Record<StripeRegion, StripeApiSettings> | null;
  problems: string[];
} {
  const problems: string[] = [];
  const main = config.STRIPE_SECRET_KEY;
  const eu = config.STRIPE_EU_SECRET_KEY;
  if (!main) {
    if (eu) problems.push('STRIPE_EU_SECRET_KEY needs STRIPE_SECRET_KEY');
    return { regions: null, problems };
  }
  const pair = (prefix: string, secret: string | undefined, publishable: string | undefined) => {
    if (!secret) {
      if (publishable) problems.push(`${prefix}PUBLISHABLE_KEY is only read with ${prefix}SECRET_KEY`);
      return;
    }
    if (!publishable) problems.push(`${prefix}PUBLISHABLE_KEY is required with ${prefix}SECRET_KEY`);
    else if (publishable.startsWith('pk_test_') !== isTestKey(secret)) {
      problems.push(`${prefix}PUBLISHABLE_KEY and ${prefix}SECRET_KEY must both be test keys or both live keys`);
    }
  };
  pair('STRIPE_', main, config.STRIPE_PUBLISHABLE_KEY);
  pair('STRIPE_EU_', eu, config.STRIPE_EU_PUBLISHABLE_KEY);
  if (eu && isTestKey(eu) !== isTestKey(main)) {
    problems.push('STRIPE_EU_SECRET_KEY and STRIPE_SECRET_KEY must both be test keys or both live keys');
  }
  const base = new URL(config.STRIPE_API_BASE);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  const us: StripeApiSettings = {
    secretKey: main,
    publishableKey: config.STRIPE_PUBLISHABLE_KEY ?? '',
    api: { host: base.hostname, port: base.port ? Number(base.port) : protocol === 'http' ? 80 : 443, protocol },
    timeoutMs: config.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
  };
  const euSettings = eu ? { ...us, secretKey: eu, publishableKey: config.STRIPE_EU_PUBLISHABLE_KEY ?? '' } : us;
  return { regions: { US: us, EU: euSettings }, problems };
}

/** Stops the boot when the Stripe configuration has problems (listed, never quoting a key). */
export function assertStripeConfig(problems: string[]): void {
  if (problems.length > 0) throw new Error(`Invalid Stripe configuration:\n  - ${problems.join('\n  - ')}`);
}

/** readStripeApi's settings, throwing at boot when the configuration has a problem. */
export function stripeApiSettings(config: StripeApiConfig): Record<StripeRegion, StripeApiSettings> | null {
  const { regions, problems } = readStripeApi(config);
  assertStripeConfig(problems);
  return regions;
}
