import { Type } from '@sinclair/typebox';

/** webhooks-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const webhooksConfig = Type.Object({
  /** HMAC pepper for API key hashes (base64, at least 32 bytes). */
  API_KEY_PEPPER: Type.String({ minLength: 43 }),
  /** AES-256-GCM key for webhook secrets at rest (base64 of exactly 32 bytes). */
  SECRETS_ENCRYPTION_KEY: Type.String({ minLength: 44, maxLength: 44 }),
  SECRETS_ENCRYPTION_KEY_ID: Type.String({ default: 'k1', minLength: 1 }),
  /**
   * Older keys that still open what they sealed, `id:base64key` comma-separated (rotation: the new key
   * becomes SECRETS_ENCRYPTION_KEY, the old one moves here until nothing is sealed under it).
   */
  SECRETS_ENCRYPTION_PREVIOUS_KEYS: Type.String({ default: '', maxLength: 10_000 }),
  /**
   * Sandbox keys may target loopback, private (RFC 1918), ULA and CGNAT addresses: on for the local
   * launcher and tests, off in Helm and compose. Live keys never may; metadata and link-local never.
   */
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: Type.Boolean({ default: false }),
  /** Webhook sends in flight per replica, all receivers together (the global pool). */
  WEBHOOKS_CONCURRENCY: Type.Integer({ default: 64, minimum: 1, maximum: 1024 }),
  /**
   * Platform events each webhook consumer handles at once per replica: their first attempts being sent,
   * waiting for a send slot or being recorded. Also the most first attempts that wait for a slot. More
   * than the send pool, so inserts go in bigger batches (FerretDB costs ~1.3 ms per insert command, client
   * and server together, against ~0.1-0.3 ms per document).
   */
  WEBHOOKS_EVENTS_IN_FLIGHT: Type.Integer({ default: 256, minimum: 1, maximum: 4096 }),
  /** Webhook sends in flight per replica to one API key's endpoint (a slow receiver's share). */
  WEBHOOKS_PER_ENDPOINT_CONCURRENCY: Type.Integer({ default: 8, minimum: 1, maximum: 256 }),
  /**
   * Webhook sends in flight per replica to one merchant's endpoints together: a quarter of the default
   * pool, so one merchant's many keys at hanging receivers cannot take it (decisions H2-3).
   */
  WEBHOOKS_PER_MERCHANT_CONCURRENCY: Type.Integer({ default: 16, minimum: 1, maximum: 1024 }),
  /** How often an idle worker looks for work other replicas created or a crashed one left. */
  WEBHOOKS_POLL_INTERVAL_MS: Type.Integer({ default: 500, minimum: 10, maximum: 60_000 }),
  /** A claim's lease: beyond the 10 s attempt timeout, so only a dead worker's claim expires. */
  WEBHOOKS_LEASE_MS: Type.Integer({ default: 20_000, minimum: 11_000, maximum: 600_000 }),
  /** How often expired events and deliveries (older than 30 days) are deleted. */
  WEBHOOKS_RETENTION_INTERVAL_MS: Type.Integer({ default: 60 * 60_000, minimum: 1_000 }),
});
