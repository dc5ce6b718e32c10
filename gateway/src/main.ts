import './instrument';
import { DeliverPolicy } from 'nats';
import {
  connectNats,
  createLogger,
  decodeEnvelope,
  loadConfig,
  PlatformMetrics,
  startMetricsServer,
  stopMetricsServer,
  STREAMS,
  type Logger,
  type NatsContext,
} from '@ppay/kernel';
import { stopTracing } from '@ppay/kernel/telemetry';
import { buildGateway } from './app';
import { ApiKeyCache } from './auth/api-key-cache';
import { UserTokenVerifier } from './auth/user-token';
import { createClients } from './clients';
import { gatewayConfigSchema, type GatewayConfig } from './config';
import { IDEMPOTENCY_BUCKET, IDEMPOTENCY_TTL_MS, IdempotencyStore } from './http/idempotency';

/**
 * Evicts cached keys as soon as the webhooks service announces a change. An ordered consumer
 * resumes where it left off after a reconnect; if NATS is down the cache TTL bounds staleness.
 */
async function followApiKeyChanges(nats: NatsContext, cache: ApiKeyCache, log: Logger): Promise<() => Promise<void>> {
  const consumer = await nats.js.consumers.get('APIKEYS', { deliver_policy: DeliverPolicy.New });
  const messages = await consumer.consume();
  const loop = (async () => {
    for await (const m of messages) {
      const event = decodeEnvelope(m.data);
      if (event.subject.startsWith('apikeys.') && 'key_id' in event.data) cache.evictKeyId(event.data.key_id);
    }
  })().catch((err: unknown) => log.warn({ err }, 'api key change feed stopped'));
  return async () => {
    await messages.close();
    await loop;
  };
}

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
    async (apiKey) => {
      const p = await clients.webhooks.call('AuthenticateApiKey', { api_key: apiKey });
      return {
        keyId: p.key_id,
        merchantId: p.merchant_id,
        mode: p.mode as 'sandbox' | 'live',
        apiVersion: p.api_version,
      };
    },
    metrics,
  );
  const userTokens = new UserTokenVerifier({
    secret: config.AUTH_JWT_SECRET,
    jwksUrl: config.AUTH_JWKS_URL,
    issuer: config.AUTH_JWT_ISSUER,
    audience: config.AUTH_JWT_AUDIENCE,
  });

  const nats = await connectNats(config.NATS_URL, 'ppay-gateway', log);
  if (!Object.keys(STREAMS).includes('APIKEYS')) throw new Error('APIKEYS stream missing from the catalogue');
  let stopFeed: (() => Promise<void>) | undefined;
  // The stream is declared by the webhooks service; wait for it rather than racing its boot.
  const startFeed = async () => {
    for (;;) {
      try {
        stopFeed = await followApiKeyChanges(nats, apiKeys, log);
        log.info('following api key changes');
        return;
      } catch (err) {
        log.debug({ err }, 'APIKEYS stream not available yet');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  void startFeed();

  const kv = await nats.js.views.kv(IDEMPOTENCY_BUCKET, { ttl: IDEMPOTENCY_TTL_MS, history: 1 });
  const idempotency = new IdempotencyStore(kv);
  const app = await buildGateway({ config, log, metrics, clients, apiKeys, userTokens, idempotency });
  let ready = false;
  const metricsServer = await startMetricsServer(metrics, config.METRICS_PORT, config.METRICS_HOST, () => ready);
  await app.listen({ host: config.HOST, port: config.PORT });
  ready = true;
  log.info({ port: config.PORT, metrics_port: config.METRICS_PORT }, 'gateway ready');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ready = false;
    log.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    await app.close();
    log.debug('http server closed');
    await stopFeed?.().catch(() => undefined);
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
