import {
  AckPolicy,
  connect,
  DeliverPolicy,
  headers as natsHeaders,
  JSONCodec,
  nanos,
  RetentionPolicy,
  StorageType,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
  type NatsConnection,
  type PubAck,
} from 'nats';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Context } from '@opentelemetry/api';
import { STREAMS, upcast, type EventEnvelope, type StoredPayloads, type StreamName, type Subject } from '@ppay/kernel';
import type { Logger } from './logger';
import type { PlatformMetrics } from './metrics';

export interface NatsContext {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

const codec = JSONCodec<EventEnvelope>();
const tracer = trace.getTracer('ppay-nats');

export async function connectNats(url: string, name: string, log: Logger): Promise<NatsContext> {
  const nc = await connect({
    servers: url.split(','),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
  });
  void (async () => {
    for await (const s of nc.status()) log.info({ nats_status: s.type, data: String(s.data) }, 'nats status');
  })();
  const jsm = await nc.jetstreamManager();
  return { nc, js: nc.jetstream(), jsm };
}

/** Creates the stream, or brings its subjects up to date; safe to call from every replica at boot. */
export async function ensureStream(jsm: JetStreamManager, name: StreamName): Promise<void> {
  const config = {
    name,
    subjects: [...STREAMS[name].subjects],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    // Publisher dedupe by Nats-Msg-Id; consumers are idempotent for anything older.
    duplicate_window: nanos(2 * 60 * 1000),
    max_age: nanos(30 * 24 * 60 * 60 * 1000),
  };
  try {
    await jsm.streams.info(name);
    await jsm.streams.update(name, config);
  } catch (err) {
    if ((err as { code?: string }).code !== '404') throw err;
    await jsm.streams.add(config);
  }
}

const headerSetter = { set: (carrier: MsgHdrs, key: string, value: string) => carrier.set(key, value) };
const headerGetter = {
  get: (carrier: MsgHdrs | undefined, key: string) => carrier?.get(key) || undefined,
  keys: (carrier: MsgHdrs | undefined) => (carrier ? [...carrier.keys()] : []),
};

/**
 * Publishes an event with Nats-Msg-Id = event_id, so a retried publish inside the duplicate window
 * is dropped by the server. `traceparent` continues the trace that produced the event.
 */
export async function publishEvent(
  ctx: NatsContext,
  envelope: EventEnvelope,
  options: { traceparent?: string; metrics?: PlatformMetrics } = {},
): Promise<PubAck> {
  const headers = natsHeaders();
  let parent: Context = context.active();
  if (options.traceparent) {
    parent = propagation.extract(ROOT_CONTEXT, { traceparent: options.traceparent });
  }
  const span = tracer.startSpan(`publish ${envelope.subject}`, { kind: SpanKind.PRODUCER }, parent);
  try {
    propagation.inject(trace.setSpan(parent, span), headers, headerSetter);
    const ack = await ctx.js.publish(envelope.subject, codec.encode(envelope), { msgID: envelope.event_id, headers });
    options.metrics?.natsPublished.inc({ subject: envelope.subject });
    return ack;
  } finally {
    span.end();
  }
}

/**
 * A durable consumer of one or more subjects of one stream, typed by subject: `handle` receives the
 * envelope of exactly those subjects, with the payload already upcast to the current version.
 */
export interface ConsumerSpec<S extends Subject = Subject> {
  stream: StreamName;
  durable: string;
  subjects: readonly S[];
  /** Throw to have the message redelivered later; make the handler idempotent by event_id. */
  handle(envelope: EventEnvelope<S>, msg: JsMsg): Promise<void>;
  maxDeliver?: number;
  ackWaitMs?: number;
  /**
   * Messages handled at once (default 1: one after another, in stream order). Above 1 the handler
   * must not rely on order between messages; each message is still acked only after its own handler.
   */
  concurrency?: number;
  /**
   * A lease name (`runUnderLease`): consumers that share one run in a single replica at a time, the
   * other replicas standing by. For handlers that are correct on any number of replicas but contend
   * when they run side by side (compare-and-set on the same hot document).
   */
  exclusive?: string;
}

/** Lets specs of different subjects share one list without losing the typing inside each. */
export function defineConsumer<S extends Subject>(spec: ConsumerSpec<S>): ConsumerSpec {
  return spec as unknown as ConsumerSpec;
}

/** Decodes a stream message into the current version of its envelope. */
export function decodeEnvelope(data: Uint8Array): EventEnvelope {
  const raw = codec.decode(data) as unknown as EventEnvelope & { data: StoredPayloads[Subject] };
  return { ...raw, data: upcast(raw.subject, raw.data) } as EventEnvelope;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/** Durable pull consumer with explicit acks, redelivery backoff, tracing and lag metrics. */
export async function runDurableConsumer(
  ctx: NatsContext,
  spec: ConsumerSpec,
  log: Logger,
  metrics: PlatformMetrics,
): Promise<RunningConsumer> {
  const filter =
    spec.subjects.length === 1 ? { filter_subject: spec.subjects[0] } : { filter_subjects: [...spec.subjects] };
  await ctx.jsm.consumers.add(spec.stream, {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ...filter,
    // Unlimited by default: a consumer of money or projection events must never silently give up
    // (an outage of marketplace or Mongo longer than any fixed count would lose credits). The nak
    // backoff below is capped, and stuck messages show in the redelivery metric and alert.
    max_deliver: spec.maxDeliver ?? -1,
    ack_wait: nanos(spec.ackWaitMs ?? 30_000),
  });
  const consumer = await ctx.js.consumers.get(spec.stream, spec.durable);
  const labels = { stream: spec.stream, consumer: spec.durable };
  // Pulls at least as many as the handler takes at once, so a high `concurrency` is fed.
  let messages: ConsumerMessages | undefined = await consumer.consume({
    max_messages: Math.max(64, spec.concurrency ?? 1),
  });
  const inflight = new Set<Promise<void>>();
  const limit = Math.max(1, spec.concurrency ?? 1);
  const handleOne = async (msg: JsMsg) => {
    if (msg.info.redeliveryCount > 1) metrics.natsRedeliveries.inc(labels);
    const parent = propagation.extract(ROOT_CONTEXT, msg.headers, headerGetter);
    await tracer.startActiveSpan(`process ${msg.subject}`, { kind: SpanKind.CONSUMER }, parent, async (span) => {
      try {
        await spec.handle(decodeEnvelope(msg.data), msg);
        msg.ack();
        metrics.natsConsumed.inc({ ...labels, outcome: 'ack' });
      } catch (err) {
        const delayMs = Math.min(30_000, 500 * 2 ** Math.min(msg.info.redeliveryCount, 6));
        log.warn(
          { err, subject: msg.subject, delivery: msg.info.redeliveryCount },
          'event handling failed, will retry',
        );
        msg.nak(delayMs);
        metrics.natsConsumed.inc({ ...labels, outcome: 'nak' });
      } finally {
        span.end();
      }
    });
  };
  const loop = (async () => {
    for await (const msg of messages!) {
      if (limit === 1) {
        await handleOne(msg);
        continue;
      }
      const run = handleOne(msg).finally(() => inflight.delete(run));
      inflight.add(run);
      if (inflight.size >= limit) await Promise.race(inflight);
    }
    await Promise.all(inflight);
  })();
  const lagTimer = setInterval(() => {
    consumer
      .info(true)
      .then((info) => metrics.natsConsumerPending.set(labels, info.num_pending))
      .catch(() => undefined);
  }, 10_000);
  lagTimer.unref();
  return {
    async stop() {
      clearInterval(lagTimer);
      const current = messages;
      messages = undefined;
      await current?.close();
      await loop.catch(() => undefined);
    },
  };
}
