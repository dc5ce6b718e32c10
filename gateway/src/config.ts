import { Type, type Static } from '@sinclair/typebox';
import { COMPONENTS } from '@ppay/kernel';
import { DEFAULT_PORTS, grpcAddrEnvVar, LogLevel, Port } from '@ppay/runtime';

const serviceAddresses = Object.fromEntries(
  COMPONENTS.map((c) => [grpcAddrEnvVar(c), Type.String({ default: `127.0.0.1:${DEFAULT_PORTS[c].grpc}` })]),
);

export const gatewayConfigSchema = Type.Object({
  HOST: Type.String({ default: '127.0.0.1' }),
  PORT: Port(DEFAULT_PORTS.gateway.http),
  METRICS_HOST: Type.String({ default: '127.0.0.1' }),
  METRICS_PORT: Port(DEFAULT_PORTS.gateway.metrics),
  NATS_URL: Type.String({ default: 'nats://127.0.0.1:4222' }),
  LOG_LEVEL: LogLevel,
  /** Base URL partners see (OpenAPI servers entry, hosted checkout links). */
  PUBLIC_BASE_URL: Type.String({ default: 'http://localhost:8080' }),
  /** HS256 secret for user tokens (x-id-key) — local and simple deployments. */
  AUTH_JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** JWKS endpoint of the identity provider — production. Takes precedence over the secret. */
  AUTH_JWKS_URL: Type.Optional(Type.String({ minLength: 1 })),
  AUTH_JWT_ISSUER: Type.String({ default: 'ppay-local' }),
  AUTH_JWT_AUDIENCE: Type.String({ default: 'ppay-dashboard' }),
  /** Audience of platform administrators' tokens (the admin API): never the dashboard's. */
  AUTH_ADMIN_AUDIENCE: Type.String({ default: 'ppay-admin', minLength: 1 }),
  /**
   * The authentication contexts that prove MFA on an admin token, comma-separated: its `acr` is one of
   * them or its `amr` lists one (the identity provider's names, e.g. `mfa` or `urn:example:loa:mfa`).
   */
  AUTH_ADMIN_REQUIRED_ACR: Type.String({ default: 'mfa', minLength: 1, maxLength: 1000 }),
  /** Oldest admin token accepted (seconds since its `iat`): an hour at most. */
  AUTH_ADMIN_MAX_AGE_SECONDS: Type.Integer({ default: 3600, minimum: 60, maximum: 3600 }),
  APIKEY_CACHE_TTL_MS: Type.Integer({ default: 30_000, minimum: 0 }),
  APIKEY_CACHE_NEGATIVE_TTL_MS: Type.Integer({ default: 1_000, minimum: 0 }),
  APIKEY_CACHE_MAX_ENTRIES: Type.Integer({ default: 50_000, minimum: 1 }),
  /** Failed authentications a client address may make per window before it gets 429 (0 = unlimited). */
  AUTH_FAILURES_PER_WINDOW: Type.Integer({ default: 30, minimum: 0 }),
  AUTH_FAILURE_WINDOW_MS: Type.Integer({ default: 60_000, minimum: 1_000 }),
  /** Oldest user token accepted, whatever its own `exp` says (seconds since its `iat`). */
  AUTH_JWT_MAX_AGE_SECONDS: Type.Integer({ default: 86_400, minimum: 60 }),
  GRPC_DEADLINE_MS: Type.Integer({ default: 5_000, minimum: 1 }),
  /**
   * Deadline of calls that create payments (charges, sessions, checkout payments): longer than the
   * processor's own timeout, so payments finishes inside it (docs/decisions.md, hardening).
   */
  GRPC_PAYMENT_DEADLINE_MS: Type.Integer({ default: 15_000, minimum: 1 }),
  /** Whole-request limit (Fastify requestTimeout): above every deadline, so a stuck client cannot hold a socket. */
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({ default: 30_000, minimum: 1_000 }),
  /** Idle socket limit (Fastify connectionTimeout). */
  HTTP_CONNECTION_TIMEOUT_MS: Type.Integer({ default: 60_000, minimum: 1_000 }),
  /** AES-256-GCM key (base64 of 32 bytes) for the answers kept in the Idempotency-Key bucket. */
  SECRETS_ENCRYPTION_KEY: Type.String({ minLength: 44, maxLength: 44 }),
  SECRETS_ENCRYPTION_KEY_ID: Type.String({ default: 'k1', minLength: 1 }),
  /**
   * Older keys that still open what they sealed, `id:base64key` comma-separated (rotation: the new key
   * becomes SECRETS_ENCRYPTION_KEY, the old one moves here until nothing is sealed under it).
   */
  SECRETS_ENCRYPTION_PREVIOUS_KEYS: Type.String({ default: '', maxLength: 10_000 }),
  /** Size bound of the Idempotency-Key bucket, so it can never starve the PAYMENTS stream of storage. */
  IDEMPOTENCY_MAX_BYTES: Type.Integer({ default: 1024 * 1024 * 1024, minimum: 1024 * 1024 }),
  /** Largest answer kept for replay; a larger one is served but not kept. */
  IDEMPOTENCY_MAX_VALUE_BYTES: Type.Integer({ default: 256 * 1024, minimum: 4096 }),
  BREAKER_ERROR_THRESHOLD_PERCENT: Type.Integer({ default: 50, minimum: 1, maximum: 100 }),
  BREAKER_RESET_TIMEOUT_MS: Type.Integer({ default: 5_000, minimum: 100 }),
  BREAKER_ROLLING_WINDOW_MS: Type.Integer({ default: 10_000, minimum: 1_000 }),
  BREAKER_VOLUME_THRESHOLD: Type.Integer({ default: 5, minimum: 1 }),
  /** Requests per second (0 = unlimited), counted per gateway process; docs/decisions.md "Rate limits". */
  RATE_LIMIT_LIVE_PER_SECOND: Type.Integer({ default: 100, minimum: 0 }),
  RATE_LIMIT_SANDBOX_PER_SECOND: Type.Integer({ default: 25, minimum: 0 }),
  RATE_LIMIT_DASHBOARD_PER_SECOND: Type.Integer({ default: 25, minimum: 0 }),
  RATE_LIMIT_ANONYMOUS_PER_SECOND: Type.Integer({ default: 50, minimum: 0 }),
  BODY_LIMIT_BYTES: Type.Integer({ default: 1_048_576, minimum: 1024 }),
  /**
   * Which X-Forwarded-For hops to believe for the client IP (rate limits, logs): empty or `false` =
   * none, a number = that many proxies in front (e.g. `1` behind one ingress), or the proxies'
   * addresses/CIDRs (comma-separated). `true` (any hop) is refused: anyone could pick their IP.
   */
  TRUST_PROXY: Type.String({ default: '', maxLength: 1000 }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 0 }),
  ...serviceAddresses,
});

export type GatewayConfig = Static<typeof gatewayConfigSchema> & Record<string, string>;

/** TRUST_PROXY as Fastify's trustProxy option (a hop count becomes "trust the first n hops"). */
export function trustProxyOption(value: string): false | string | ((address: string, hop: number) => boolean) {
  const v = value.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') {
    throw new Error('TRUST_PROXY=true would trust any X-Forwarded-For: set the hop count or the proxies’ CIDRs');
  }
  if (/^\d{1,2}$/.test(v)) {
    const hops = Number(v);
    return (_address, hop) => hop < hops;
  }
  return v;
}

/** The admin token policy of the config (AUTH_ADMIN_*). */
export function adminTokenPolicy(config: GatewayConfig) {
  return {
    audience: config.AUTH_ADMIN_AUDIENCE,
    acceptedAcr: config.AUTH_ADMIN_REQUIRED_ACR.split(',')
      .map((v) => v.trim())
      .filter(Boolean),
    maxAgeSeconds: config.AUTH_ADMIN_MAX_AGE_SECONDS,
  };
}
