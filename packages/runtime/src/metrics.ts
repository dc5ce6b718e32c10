import * as http from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per process; metric names follow Prometheus conventions with the `ppay_` prefix.
 * Metrics that several components share (gRPC, NATS, outbox) are defined here once.
 */
export class PlatformMetrics {
  readonly registry = new Registry();

  readonly grpcServerHandled: Counter<'grpc_service' | 'grpc_method' | 'grpc_code'>;
  readonly grpcServerDuration: Histogram<'grpc_service' | 'grpc_method'>;
  readonly natsPublished: Counter<'subject'>;
  readonly natsConsumed: Counter<'stream' | 'consumer' | 'outcome'>;
  readonly natsRedeliveries: Counter<'stream' | 'consumer'>;
  readonly natsConsumerPending: Gauge<'stream' | 'consumer'>;
  readonly outboxRelayed: Counter<'collection'>;
  readonly outboxPending: Gauge<'collection'>;
  readonly outboxOldestPendingSeconds: Gauge<'collection'>;
  readonly outboxPublishFailures: Counter<'collection'>;
  readonly outboxDeadLetters: Counter<'collection' | 'subject'>;
  readonly grpcClientHandled: Counter<'grpc_target' | 'grpc_method' | 'grpc_code'>;
  readonly grpcClientDuration: Histogram<'grpc_target' | 'grpc_method'>;
  readonly breakerState: Gauge<'target'>;
  readonly breakerEvents: Counter<'target' | 'event'>;
  readonly leaseHeld: Gauge<'lease'>;
  readonly leaseAcquired: Counter<'lease'>;

  constructor(readonly component: string) {
    this.registry.setDefaultLabels({ component });
    collectDefaultMetrics({ register: this.registry, prefix: 'ppay_' });
    const r = [this.registry];
    this.grpcServerHandled = new Counter({
      name: 'ppay_grpc_server_handled_total',
      help: 'gRPC calls completed by this service, by method and status code',
      labelNames: ['grpc_service', 'grpc_method', 'grpc_code'],
      registers: r,
    });
    this.grpcServerDuration = new Histogram({
      name: 'ppay_grpc_server_handling_seconds',
      help: 'Time spent handling gRPC calls',
      labelNames: ['grpc_service', 'grpc_method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: r,
    });
    this.natsPublished = new Counter({
      name: 'ppay_nats_published_total',
      help: 'Events published to JetStream (duplicates detected by the server included)',
      labelNames: ['subject'],
      registers: r,
    });
    this.natsConsumed = new Counter({
      name: 'ppay_nats_consumed_total',
      help: 'JetStream messages processed by durable consumers, by outcome (ack, nak, term, duplicate)',
      labelNames: ['stream', 'consumer', 'outcome'],
      registers: r,
    });
    this.natsRedeliveries = new Counter({
      name: 'ppay_nats_redeliveries_total',
      help: 'JetStream messages received more than once',
      labelNames: ['stream', 'consumer'],
      registers: r,
    });
    this.natsConsumerPending = new Gauge({
      name: 'ppay_nats_consumer_pending_messages',
      help: 'Messages in the stream not yet delivered to the consumer (consumer lag)',
      labelNames: ['stream', 'consumer'],
      registers: r,
    });
    this.outboxRelayed = new Counter({
      name: 'ppay_outbox_relayed_total',
      help: 'Outbox events relayed to JetStream',
      labelNames: ['collection'],
      registers: r,
    });
    this.outboxPending = new Gauge({
      name: 'ppay_outbox_pending_documents',
      help: 'Documents with outbox events not yet relayed, as of the last sweep',
      labelNames: ['collection'],
      registers: r,
    });
    this.outboxOldestPendingSeconds = new Gauge({
      name: 'ppay_outbox_oldest_pending_seconds',
      help: 'Age of the oldest outbox event not yet relayed, as of the last sweep (relay lag)',
      labelNames: ['collection'],
      registers: r,
    });
    this.outboxPublishFailures = new Counter({
      name: 'ppay_outbox_publish_failures_total',
      help: 'Outbox events whose publish to JetStream failed (retried by the next sweep)',
      labelNames: ['collection'],
      registers: r,
    });
    this.outboxDeadLetters = new Counter({
      name: 'ppay_outbox_dead_letters_total',
      help: 'Outbox events that can never be published, moved to outbox_dead_letters (alerted on)',
      labelNames: ['collection', 'subject'],
      registers: r,
    });
    this.grpcClientHandled = new Counter({
      name: 'ppay_grpc_client_handled_total',
      help: 'gRPC calls made to other components, by target, method and status code',
      labelNames: ['grpc_target', 'grpc_method', 'grpc_code'],
      registers: r,
    });
    this.grpcClientDuration = new Histogram({
      name: 'ppay_grpc_client_handling_seconds',
      help: 'Latency of gRPC calls made to other components',
      labelNames: ['grpc_target', 'grpc_method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    });
    this.breakerState = new Gauge({
      name: 'ppay_circuit_breaker_state',
      help: 'Circuit breaker state per target: 0 closed, 1 half-open, 2 open',
      labelNames: ['target'],
      registers: r,
    });
    this.breakerEvents = new Counter({
      name: 'ppay_circuit_breaker_events_total',
      help: 'Circuit breaker transitions and rejections (open, half_open, close, reject, timeout)',
      labelNames: ['target', 'event'],
      registers: r,
    });
    this.leaseHeld = new Gauge({
      name: 'ppay_lease_held',
      help: 'Whether this process holds the lease (1) and runs its work, or stands by (0)',
      labelNames: ['lease'],
      registers: r,
    });
    this.leaseAcquired = new Counter({
      name: 'ppay_lease_acquired_total',
      help: 'Times this process took the lease (a rising sum across replicas means holders keep changing)',
      labelNames: ['lease'],
      registers: r,
    });
  }
}

/**
 * Small HTTP listener for /metrics (Prometheus) and /healthz, kept off the public port.
 * `ready` lets probes see shutdown before the process goes away.
 */
export function startMetricsServer(
  metrics: PlatformMetrics,
  port: number,
  host: string,
  ready: () => boolean,
): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics') {
      metrics.registry
        .metrics()
        .then((body) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(body);
        })
        .catch(() => {
          res.writeHead(500);
          res.end();
        });
      return;
    }
    if (req.url === '/healthz' || req.url === '/readyz') {
      const ok = req.url === '/healthz' || ready();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** Closes the listener and its idle keep-alive connections (probes and scrapers keep them open). */
export function stopMetricsServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
