import { Type } from '@sinclair/typebox';
import { DEFAULT_PORTS } from '@ppay/runtime';
import { stripeApiConfig } from '@ppay/stripe-support';

/** kyc-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const serviceConfig = Type.Object({
  MARKETPLACE_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS.marketplace.grpc}` }),
  /** AES-256-GCM key for bank account and ID numbers and personal data at rest (base64 of 32 bytes). */
  SECRETS_ENCRYPTION_KEY: Type.String({ minLength: 44, maxLength: 44 }),
  SECRETS_ENCRYPTION_KEY_ID: Type.String({ default: 'k1', minLength: 1 }),
  /**
   * Older keys that still open what they sealed, `id:base64key` comma-separated (rotation: the new key
   * becomes SECRETS_ENCRYPTION_KEY, the old one moves here until nothing is sealed under it).
   */
  SECRETS_ENCRYPTION_PREVIOUS_KEYS: Type.String({ default: '', maxLength: 10_000 }),
  /** Lifetime of a hosted onboarding link (connected-account route); Stripe's account links last minutes. */
  ONBOARDING_LINK_TTL_MS: Type.Integer({ default: 10 * 60_000, minimum: 1_000 }),
  /** How often the review-queue gauges are refreshed. */
  REVIEW_QUEUE_METRICS_INTERVAL_MS: Type.Integer({ default: 30_000, minimum: 1_000 }),
  /** How often the re-encryption job moves up to 1,000 cases' sealed values to the current key. */
  REENCRYPT_INTERVAL_MS: Type.Integer({ default: 60_000, minimum: 1_000 }),
  /** The breaker's timeout of each call to the connected-account gateway (above Stripe's timeout × attempts). */
  PROCESSOR_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  /** Live connected accounts on Stripe Connect (connect/): off without STRIPE_SECRET_KEY. */
  ...stripeApiConfig.properties,
});
