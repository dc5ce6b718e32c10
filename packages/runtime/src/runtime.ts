import type * as grpc from '@grpc/grpc-js';
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import type { Connection } from 'mongoose';
import { serviceDefinitions, type ServiceName } from '@ppay/proto';
import { loadConfig, LogLevel, Port } from './config';
import { STREAMS, type StreamName } from '@ppay/kernel';
import { bindService, startGrpcServer, type AnyHandler, type UnaryHandlers } from './grpc/server';
import { createLogger, type Logger } from './logger';
import { PlatformMetrics, startMetricsServer, stopMetricsServer } from './metrics';
import { connectMongo } from './mongo';
import {
  connectNats,
  ensureStream,
  runDurableConsumer,
  type ConsumerSpec,
  type NatsContext,
  type RunningConsumer,
} from './nats';
import { runUnderLease } from './lease';
import type { OutboxRelay } from './outbox';
import {
  merchantDeletionConsumer,
  MerchantTombstones,
  tombstoneSweepJob,
  type MerchantDataTarget,
  type MerchantDeletionConsumerOptions,
} from './merchant-deletion';
import { DEFAULT_PORTS } from './ports';
import { stopTracing } from './telemetry/tracing';

/** Config every service has; a service may add its own keys. */
export function baseServiceConfig(name: ServiceName) {
  return Type.Object({
    GRPC_HOST: Type.String({ default: '127.0.0.1' }),
    GRPC_PORT: Port(DEFAULT_PORTS[name].grpc),
    METRICS_HOST: Type.String({ default: '127.0.0.1' }),
    METRICS_PORT: Port(DEFAULT_PORTS[name].metrics),
    MONGODB_URI: Type.String({ default: 'mongodb://127.0.0.1:27017/' }),
    MONGODB_DB: Type.String({ default: `ppay_${name.replace(/-/g, '_')}` }),
    NATS_URL: Type.String({ default: 'nats://127.0.0.1:4222' }),
    LOG_LEVEL: LogLevel,
    SHUTDOWN_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 0 }),
  });
}
export type BaseServiceConfig = Static<ReturnType<typeof baseServiceConfig>>;

export interface ServiceDeps<C> {
  config: C;
  log: Logger;
  metrics: PlatformMetrics;
  mongo: Connection;
  nats: NatsContext;
}

/** Background work a service repeats (sweeps, reconcilers): never two runs at once, failures logged. */
export interface PeriodicJob {
  name: string;
  intervalMs: number;
  /** Resolves to what to log (e.g. how many items it handled); 0 or undefined logs nothing. */
  run(): Promise<number | void>;
}

/**
 * What delete-merchant (spec 3.5, 4.9) purges in a service: the runtime runs the deletion consumer and
 * the tombstone sweep over it, so no service can leave either out.
 */
export interface MerchantDataParts {
  /** Every collection of the service holding a merchant's data (its `merchant-data.repo.ts`). */
  targets: readonly MerchantDataTarget[];
  /** The tombstones the service's own consumers check, if any (otherwise the runtime makes one). */
  tombstones?: MerchantTombstones;
  beforePurge?: MerchantDeletionConsumerOptions['beforePurge'];
}

export interface ServiceParts<H> {
  handlers: UnaryHandlers<H>;
  merchantData: MerchantDataParts;
  relays?: OutboxRelay[];
  consumers?: ConsumerSpec[];
  jobs?: PeriodicJob[];
  onShutdown?: () => Promise<void>;
}

/** Starts the jobs; the returned function stops them and waits for any run in progress. */
export function startJobs(jobs: PeriodicJob[], log: Logger): () => Promise<void> {
  const running = new Map<string, Promise<unknown>>();
  const timers = jobs.map((job) => {
    const timer = setInterval(() => {
      if (running.has(job.name)) return;
      const run = job
        .run()
        .then((n) => {
          if (n) log.info({ job: job.name, count: n }, `${job.name} done`);
        })
        .catch((err: unknown) => log.warn({ err, job: job.name }, `${job.name} failed; next run retries`))
        .finally(() => running.delete(job.name));
      running.set(job.name, run);
    }, job.intervalMs);
    timer.unref();
    return timer;
  });
  return async () => {
    for (const t of timers) clearInterval(t);
    await Promise.all(running.values());
  };
}

const FULL_NAMES: Record<ServiceName, string> = {
  payments: 'ppay.payments.v1.PaymentsService',
  'fx-pricing': 'ppay.fxpricing.v1.FxPricingService',
  subscriptions: 'ppay.subscriptions.v1.SubscriptionsService',
  marketplace: 'ppay.marketplace.v1.MarketplaceService',
  kyc: 'ppay.kyc.v1.KycService',
  webhooks: 'ppay.webhooks.v1.WebhooksService',
};

/**
 * The one service runtime: config → logs/metrics → Mongo → NATS (streams it owns) → use cases →
 * gRPC server with health → consumers and outbox relays. SIGTERM/SIGINT drain in reverse order.
 */
export async function runService<H, P extends TProperties = TProperties>(options: {
  name: ServiceName;
  extraConfig?: TObject<P>;
  setup(deps: ServiceDeps<BaseServiceConfig & Static<TObject<P>>>): Promise<ServiceParts<H>>;
}): Promise<void> {
  const { name } = options;
  let config: BaseServiceConfig & Static<TObject<P>>;
  try {
    const extra = options.extraConfig ? loadConfig(options.extraConfig) : ({} as Static<TObject<P>>);
    config = { ...loadConfig(baseServiceConfig(name)), ...extra };
  } catch (err) {
    process.stderr.write(`${name}: ${(err as Error).message}\n`);
    process.exit(78); // EX_CONFIG
  }
  const log = createLogger(name, config.LOG_LEVEL);
  const metrics = new PlatformMetrics(name);
  let ready = false;
  const metricsServer = await startMetricsServer(metrics, config.METRICS_PORT, config.METRICS_HOST, () => ready);

  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB, log);
  const nats = await connectNats(config.NATS_URL, `ppay-${name}`, log);
  for (const [stream, def] of Object.entries(STREAMS)) {
    if (def.owner === name) await ensureStream(nats.jsm, stream as StreamName);
  }

  const parts = await options.setup({ config, log, metrics, mongo, nats });
  const definition = serviceDefinitions()[name] as grpc.ServiceDefinition;
  const bound = bindService(
    FULL_NAMES[name],
    definition,
    parts.handlers as unknown as Record<string, AnyHandler | undefined>,
    log,
    metrics,
  );
  const grpcServer = await startGrpcServer(config.GRPC_HOST, config.GRPC_PORT, [
    { fullName: FULL_NAMES[name], definition, implementation: bound.implementation },
  ]);
  const { targets, tombstones, beforePurge } = parts.merchantData;
  const deletion = merchantDeletionConsumer({
    service: name,
    conn: mongo,
    nats,
    targets,
    tombstones: tombstones ?? new MerchantTombstones(mongo),
    log,
    beforePurge,
  });
  const consumers: RunningConsumer[] = [];
  const exclusive = new Map<string, ConsumerSpec[]>();
  for (const spec of [...(parts.consumers ?? []), deletion]) {
    // The publisher owns the stream, but may boot after us; declaring it is idempotent.
    await ensureStream(nats.jsm, spec.stream);
    if (spec.exclusive) exclusive.set(spec.exclusive, [...(exclusive.get(spec.exclusive) ?? []), spec]);
    else consumers.push(await runDurableConsumer(nats, spec, log, metrics));
  }
  for (const [lease, specs] of exclusive) {
    const start = async () => {
      const running = await Promise.all(specs.map((spec) => runDurableConsumer(nats, spec, log, metrics)));
      return { stop: async () => void (await Promise.all(running.map((c) => c.stop()))) };
    };
    consumers.push(await runUnderLease(nats, { name: lease, start }, log, metrics));
  }
  for (const relay of parts.relays ?? []) relay.start();
  const stopJobs = startJobs([...(parts.jobs ?? []), tombstoneSweepJob(mongo, targets)], log);
  ready = true;
  log.info(
    { grpc_port: grpcServer.port, metrics_port: config.METRICS_PORT, implemented: bound.implemented },
    `${name} service ready`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ready = false;
    log.info({ signal }, 'shutting down: draining in-flight calls');
    await grpcServer.shutdown(config.SHUTDOWN_TIMEOUT_MS);
    for (const c of consumers) await c.stop().catch((err: unknown) => log.warn({ err }, 'consumer stop failed'));
    for (const r of parts.relays ?? []) await r.stop();
    await stopJobs();
    await parts.onShutdown?.();
    await nats.nc.drain().catch((err: unknown) => log.warn({ err }, 'nats drain failed'));
    await mongo.close().catch((err: unknown) => log.warn({ err }, 'mongo close failed'));
    await stopMetricsServer(metricsServer);
    await stopTracing();
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
