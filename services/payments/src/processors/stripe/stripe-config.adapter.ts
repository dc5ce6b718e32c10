import { Type, type Static } from '@sinclair/typebox';
import {
  assertStripeConfig,
  readStripeApi,
  stripeApiConfig,
  type StripeApiSettings,
  type StripeRegion,
} from '@ppay/stripe-support';

/**
 * The Stripe connector's settings (read with the rest of the payments config): how to reach the API
 * (`@ppay/stripe-support`, shared with kyc) and what only payments needs. Without a secret key the
 * connector is off and live card requests answer GATEWAY_NOT_CONFIGURED.
 */
export const stripeConfig = Type.Object({
  ...stripeApiConfig.properties,
  /** Webhook endpoint signing secrets, comma-separated: two during a roll, each tried in turn. */
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ maxLength: 2_000 })),
  /** The EU platform account's endpoint secrets (its connected accounts' events), with STRIPE_EU_SECRET_KEY. */
  STRIPE_EU_WEBHOOK_SECRET: Type.Optional(Type.String({ maxLength: 2_000 })),
  /** The platform's own Stripe account id; when empty it is read once from the API (GET /v1/account). */
  STRIPE_ACCOUNT_ID: Type.Optional(Type.String({ pattern: '^acct_[A-Za-z0-9]{1,64}$' })),
});

export type StripeConfig = Static<typeof stripeConfig>;

export interface StripeSettings extends StripeApiSettings {
  /** Every endpoint secret an inbound event may be signed with (the main account's, then the EU one's). */
  webhookSecrets: string[];
  accountId: string | null;
  /** Each region's platform account (EU = the main one unless STRIPE_EU_SECRET_KEY is set). */
  regions: Record<StripeRegion, StripeApiSettings>;
}

const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=_]{8,240}$/;

/** The webhook signing secrets of STRIPE_WEBHOOK_SECRET (empty when unset). */
export function webhookSecretsOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function secretProblems(name: string, secrets: string[]): string[] {
  const problems: string[] = [];
  if (secrets.length > 4) problems.push(`${name} holds at most 4 secrets`);
  if (secrets.some((s) => !WEBHOOK_SECRET.test(s))) problems.push(`${name}: each secret is whsec_…`);
  return problems;
}

/**
 * The connector's settings, or null when Stripe is not configured (no secret key). A secret key
 * without its publishable key or a webhook secret is refused at boot: a live payment must never be
 * created at Stripe without the platform being able to hand out its form and learn its outcome; so is
 * an EU key without the EU endpoint's secret. Problems never quote a key.
 */
export function stripeSettings(config: StripeConfig): StripeSettings | null {
  const { regions, problems } = readStripeApi(config);
  if (!regions) {
    assertStripeConfig(problems);
    return null;
  }
  const secrets = webhookSecretsOf(config.STRIPE_WEBHOOK_SECRET);
  if (secrets.length === 0) problems.push('STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY');
  problems.push(...secretProblems('STRIPE_WEBHOOK_SECRET', secrets));
  const euSecrets = webhookSecretsOf(config.STRIPE_EU_WEBHOOK_SECRET);
  if (config.STRIPE_EU_SECRET_KEY && euSecrets.length === 0) {
    problems.push('STRIPE_EU_WEBHOOK_SECRET is required with STRIPE_EU_SECRET_KEY');
  }
  if (!config.STRIPE_EU_SECRET_KEY && euSecrets.length > 0) {
    problems.push('STRIPE_EU_WEBHOOK_SECRET is only read with STRIPE_EU_SECRET_KEY');
  }
  problems.push(...secretProblems('STRIPE_EU_WEBHOOK_SECRET', euSecrets));
  assertStripeConfig(problems);
  return {
    ...regions.US,
    webhookSecrets: [...secrets, ...euSecrets],
    accountId: config.STRIPE_ACCOUNT_ID ?? null,
    regions,
  };
}
