import './instrument';
import { parsePreviousKeys, SecretBox } from '@ppay/kernel';
import {
  connectNats,
  createLogger,
  loadConfig,
  PlatformMetrics,
  startMetricsServer,
  stopMetricsServer,
} from '@ppay/runtime';
import { stopTracing } from '@ppay/runtime/telemetry';
import { buildGateway } from './app';
import { ApiKeyCache } from './auth/api-key-cache';
import { AuthFailureLimiter } from './auth/failure-limiter';
import { KeyChangeFeed } from './auth/key-change-feed';
import { UserTokenVerifier } from './auth/user-token';
import { apiKeyLookup, createClients } from './clients';
import { adminTokenPolicy, gatewayConfigSchema, type GatewayConfig } from './config';
import { IDEMPOTENCY_BUCKET, IDEMPOTENCY_TTL_MS, IdempotencyStore } from './http/idempotency';

async function main(): Promise<void> {
  let config: GatewayConfig;
  try {
    config = loadConfig(gatewayConfigSchema) as GatewayConfig;
  } catch (err) {
    process.stderr.write(`gateway: ${(err as Error).message}\n`);
    process.exit(78);
  }
  const log = createLogger('gateway', config.LOG_LEVEL);
  const metrics = new PlatformMetrics('gateway');
  const clients = createClients(config, metrics);
  const apiKeys = new ApiKeyCache(
    {
      ttlMs: config.APIKEY_CACHE_TTL_MS,
      negativeTtlMs: config.APIKEY_CACHE_NEGATIVE_TTL_MS,
      maxEntries: config.APIKEY_CACHE_MAX_ENTRIES,
    },
    apiKeyLookup(clients),
    metrics,
  );
  const userTokens = new UserTokenVerifier({
    secret: config.AUTH_JWT_SECRET,
    jwksUrl: config.AUTH_JWKS_URL,
    issuer: config.AUTH_JWT_ISSUER,
    audience: config.AUTH_JWT_AUDIENCE,
    maxAgeSeconds: config.AUTH_JWT_MAX_AGE_SECONDS,
    admin: adminTokenPolicy(config),
  });

  const nats = await connectNats(config.NATS_URL, 'ppay-gateway', log);
  const feed = new KeyChangeFeed(nats, apiKeys, log);
  feed.start();

  const kv = await nats.js.views.kv(IDEMPOTENCY_BUCKET, {
    ttl: IDEMPOTENCY_TTL_MS,
    history: 1,
    max_bytes: config.IDEMPOTENCY_MAX_BYTES,
    maxValueSize: config.IDEMPOTENCY_MAX_VALUE_BYTES,
  });
  const idempotency = new IdempotencyStore(
    kv,
    new SecretBox(
      Buffer.from(config.SECRETS_ENCRYPTION_KEY, 'base64'),
      config.SECRETS_ENCRYPTION_KEY_ID,
      parsePreviousKeys(config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    ),
    log,
    metrics,
  );
  const readiness = () => {
    const reasons = feed.up ? [] : ['api key change feed is down: revocations would not be honoured'];
    return { ready: reasons.length === 0, reasons };
  };
  const app = await buildGateway({
    config,
    log,
    metrics,
    clients,
    apiKeys,
    userTokens,
    idempotency,
    authFailures: new AuthFailureLimiter(config.AUTH_FAILURES_PER_WINDOW, config.AUTH_FAILURE_WINDOW_MS, metrics),
    readiness,
  });
  let listening = false;
  const metricsServer = await startMetricsServer(
    metrics,
    config.METRICS_PORT,
    config.METRICS_HOST,
    () => listening && readiness().ready,
  );
  await app.listen({ host: config.HOST, port: config.PORT });
  listening = true;
  log.info({ port: config.PORT, metrics_port: config.METRICS_PORT }, 'gateway ready');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    listening = false;
    log.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    await app.close();
    log.debug('http server closed');
    await feed.stop();
    log.debug('api key feed stopped');
    for (const c of Object.values(clients)) c.close();
    await nats.nc.drain().catch(() => undefined);
    log.debug('nats drained');
    await stopMetricsServer(metricsServer);
    log.debug('metrics server closed');
    await stopTracing();
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

void main();
