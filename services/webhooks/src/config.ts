import { Type } from '@sinclair/typebox';

/** webhooks-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const webhooksConfig = Type.Object({
  /** HMAC pepper for API key hashes (base64, at least 32 bytes). */
  API_KEY_PEPPER: Type.String({ minLength: 43 }),
  /** AES-256-GCM key for webhook secrets at rest (base64 of exactly 32 bytes). */
  SECRETS_ENCRYPTION_KEY: Type.String({ minLength: 44, maxLength: 44 }),
  SECRETS_ENCRYPTION_KEY_ID: Type.String({ default: 'k1', minLength: 1 }),
});
