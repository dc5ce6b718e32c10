import { Type, type Static } from '@sinclair/typebox';

/**
 * The Stripe connector's settings (read with the rest of the payments config). Without a secret key
 * the connector is off and live card requests answer GATEWAY_NOT_CONFIGURED. A `sk_test_…` key in
 * live mode is allowed: that is how a staging install runs against Stripe's test mode.
 */
export const stripeConfig = Type.Object({
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ pattern: '^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,240}$' })),
  /** Handed to partners with each card payment, for Stripe's embedded form (not a secret). */
  STRIPE_PUBLISHABLE_KEY: Type.Optional(Type.String({ pattern: '^pk_(test|live)_[A-Za-z0-9_]{8,240}$' })),
  /** Webhook endpoint signing secrets, comma-separated: two during a roll, each tried in turn. */
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ maxLength: 2_000 })),
  /** Where the API is (tests: stripe-mock on loopback). */
  STRIPE_API_BASE: Type.String({ default: 'https://api.stripe.com', pattern: '^https?://[^/?#]+/?$' }),
  /** The platform's own Stripe account id; when empty it is read once from the API (GET /v1/account). */
  STRIPE_ACCOUNT_ID: Type.Optional(Type.String({ pattern: '^acct_[A-Za-z0-9]{1,64}$' })),
  /** Per attempt; with the retries it stays under PROCESSOR_TIMEOUT_MS so the breaker's timeout is the last word. */
  STRIPE_TIMEOUT_MS: Type.Integer({ default: 4_000, minimum: 100, maximum: 60_000 }),
  /** The library's own retries of connection errors, 409s, 429s and 5xx (same idempotency key). */
  STRIPE_MAX_NETWORK_RETRIES: Type.Integer({ default: 1, minimum: 0, maximum: 5 }),
});

export type StripeConfig = Static<typeof stripeConfig>;

export interface StripeSettings {
  secretKey: string;
  publishableKey: string;
  webhookSecrets: string[];
  api: { host: string; port: number; protocol: 'http' | 'https' };
  accountId: string | null;
  timeoutMs: number;
  maxNetworkRetries: number;
}

const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=_]{8,240}$/;

/** The webhook signing secrets of STRIPE_WEBHOOK_SECRET (empty when unset). */
export function webhookSecretsOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * The connector's settings, or null when Stripe is not configured (no secret key). A secret key
 * without its publishable key or a webhook secret is refused at boot: a live payment must never be
 * created at Stripe without the platform being able to hand out its form and learn its outcome.
 * Problems never quote a key.
 */
export function stripeSettings(config: StripeConfig): StripeSettings | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const problems: string[] = [];
  if (!config.STRIPE_PUBLISHABLE_KEY) problems.push('STRIPE_PUBLISHABLE_KEY is required with STRIPE_SECRET_KEY');
  const secrets = webhookSecretsOf(config.STRIPE_WEBHOOK_SECRET);
  if (secrets.length === 0) problems.push('STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY');
  if (secrets.length > 4) problems.push('STRIPE_WEBHOOK_SECRET holds at most 4 secrets');
  if (secrets.some((s) => !WEBHOOK_SECRET.test(s))) problems.push('STRIPE_WEBHOOK_SECRET: each secret is whsec_…');
  const testKey = config.STRIPE_SECRET_KEY.startsWith('sk_test_') || config.STRIPE_SECRET_KEY.startsWith('rk_test_');
  if (config.STRIPE_PUBLISHABLE_KEY && config.STRIPE_PUBLISHABLE_KEY.startsWith('pk_test_') !== testKey) {
    problems.push('STRIPE_PUBLISHABLE_KEY and STRIPE_SECRET_KEY must both be test keys or both live keys');
  }
  if (problems.length > 0) throw new Error(`Invalid Stripe configuration:\n  - ${problems.join('\n  - ')}`);
  const base = new URL(config.STRIPE_API_BASE);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return {
    secretKey: config.STRIPE_SECRET_KEY,
    publishableKey: config.STRIPE_PUBLISHABLE_KEY!,
    webhookSecrets: secrets,
    api: { host: base.hostname, port: base.port ? Number(base.port) : protocol === 'http' ? 80 : 443, protocol },
    accountId: config.STRIPE_ACCOUNT_ID ?? null,
    timeoutMs: config.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
  };
}
