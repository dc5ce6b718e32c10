import { Type, type Static } from '@sinclair/typebox';
import { COMPONENTS, DEFAULT_PORTS, grpcAddrEnvVar, LogLevel, Port } from '@ppay/kernel';

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
  APIKEY_CACHE_TTL_MS: Type.Integer({ default: 30_000, minimum: 0 }),
  APIKEY_CACHE_NEGATIVE_TTL_MS: Type.Integer({ default: 2_000, minimum: 0 }),
  APIKEY_CACHE_MAX_ENTRIES: Type.Integer({ default: 50_000, minimum: 1 }),
  GRPC_DEADLINE_MS: Type.Integer({ default: 5_000, minimum: 1 }),
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
  TRUST_PROXY: Type.Boolean({ default: false }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 0 }),
  ...serviceAddresses,
});

export type GatewayConfig = Static<typeof gatewayConfigSchema> & Record<string, string>;
