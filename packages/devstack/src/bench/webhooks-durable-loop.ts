import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import { mongo } from 'mongoose';
import { AckPolicy, connect, DeliverPolicy, JSONCodec, nanos, RetentionPolicy, StorageType, type JsMsg } from 'nats';
import { WriteBatcher } from '@ppay/kernel';
import {
  DURABLE_DB,
  DURABLE_STREAM,
  DURABLE_SUBJECT,
  deliveryDocument,
  eventDocument,
  signedRequest,
  type DurableEnvelope,
  type DurableReceiver,
  type DurableRequest,
  type DurableResult,
} from './webhooks-durable-docs';

/**
 * The durable baseline of `bench -- webhooks`, its own process like the webhooks service: the durable
 * work the platform does per delivery and nothing else. A durable pull consumer (explicit acks,
 * unlimited redelivery, like the platform's) hands it events; per event it inserts the event record,
 * signs, POSTs to the merchant's verifying sink, inserts the delivery with its outcome, and only then
 * acks the message. Both inserts go through the kernel's WriteBatcher, as the service's do, into
 * collections of their own on the same FerretDB: no secondary indexes (the floor) unless
 * BENCH_WEBHOOK_DURABLE_INDEXES=1. Limits as the service's defaults: 256 events in flight
 * (WEBHOOKS_EVENTS_IN_FLIGHT), 8 sockets per receiver (the sender's MAX_SOCKETS_PER_HOST and
 * WEBHOOKS_PER_ENDPOINT_CONCURRENCY), 64 sends at once (WEBHOOKS_CONCURRENCY). Left out: tracing,
 * metrics, the key and tombstone reads (cached in the service), renderers per API version (the body is
 * the latest version's shape), the SSRF check, send slots, the claim loop and retries (the bench's sinks
 * answer 200).
 *
 * Env: DURABLE_MONGO_URI, DURABLE_NATS_URL, DURABLE_RECEIVERS (JSON DurableReceiver[]). Prints
 * "ready" once the stream, consumer and collections exist; stops on SIGTERM.
 */
/**
 * BENCH_WEBHOOK_DURABLE_INDEXES=1 gives the baseline's collections the secondary indexes of the
 * service's `webhook_events` and `webhook_deliveries` (event.repo.ts, delivery-documents.repo.ts), to
 * measure what they cost per delivery.
 */
const DURABLE_WITH_INDEXES = process.env.BENCH_WEBHOOK_DURABLE_INDEXES === '1';
const PLATFORM_INDEXES: Record<'events' | 'deliveries', Record<string, 1 | -1>[]> = {
  events: [
    { merchant_id: 1, mode: 1, occurred_at: -1, _id: -1 },
    { created_at: 1 },
    { merchant_id: 1, mode: 1, created_at: 1, _id: 1 },
  ],
  deliveries: [
    { status: 1, next_attempt_at: 1 },
    { event_id: 1, key_id: 1 },
    { merchant_id: 1, mode: 1, status: 1, created_at: -1 },
    { created_at: 1 },
  ],
};

const EVENTS_IN_FLIGHT = 256;
const SENDS_AT_ONCE = 64;
const SOCKETS_PER_RECEIVER = 8;
const ATTEMPT_TIMEOUT_MS = 10_000;
const EXCERPT_BYTES = 1024;

/** Inserts a batch; documents already stored (a redelivered message) are left as they are. */
async function insertIgnoringDuplicates(collection: mongo.Collection<any>, docs: object[]): Promise<void[]> {
  try {
    await collection.insertMany(docs, { ordered: false });
  } catch (err) {
    const e = err as { code?: number; writeErrors?: { code?: number }[] | { code?: number } };
    const errors = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : [e];
    if (!errors.every((w) => w.code === 11000)) throw err;
  }
  return docs.map(() => undefined);
}

const agent = new http.Agent({
  keepAlive: true,
  maxSockets: SOCKETS_PER_RECEIVER,
  maxFreeSockets: SOCKETS_PER_RECEIVER,
  maxTotalSockets: SENDS_AT_ONCE,
  timeout: 4_000,
});

function post(receiver: DurableReceiver, request: DurableRequest): Promise<DurableResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number | null, excerpt: string) =>
      resolve({ status, duration_ms: Math.round(performance.now() - started), response_excerpt: excerpt });
    const req = http.request(
      { host: '127.0.0.1', port: receiver.port, path: '/hooks', method: 'POST', agent, headers: request.headers },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          if (bytes < EXCERPT_BYTES) chunks.push(c.subarray(0, EXCERPT_BYTES - bytes));
          bytes += c.length;
        });
        res.on('end', () => done(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
      },
    );
    req.setTimeout(ATTEMPT_TIMEOUT_MS, () => req.destroy());
    req.on('error', () => done(null, ''));
    req.end(request.body);
  });
}

async function main(): Promise<void> {
  const { DURABLE_MONGO_URI, DURABLE_NATS_URL, DURABLE_RECEIVERS } = process.env;
  if (!DURABLE_MONGO_URI || !DURABLE_NATS_URL || !DURABLE_RECEIVERS) throw new Error('DURABLE_* env missing');
  const receivers = new Map(
    (JSON.parse(DURABLE_RECEIVERS) as DurableReceiver[]).map((r) => [r.merchant_id, r] as const),
  );
  const client = await mongo.MongoClient.connect(DURABLE_MONGO_URI);
  const db = client.db(DURABLE_DB);
  const events = db.collection('events');
  const deliveries = db.collection('deliveries');
  for (const name of ['events', 'deliveries']) await db.createCollection(name).catch(() => undefined);
  if (DURABLE_WITH_INDEXES) {
    for (const spec of PLATFORM_INDEXES.events) await events.createIndex(spec);
    for (const spec of PLATFORM_INDEXES.deliveries) await deliveries.createIndex(spec, { unique: 'key_id' in spec });
  }
  const eventWrites = new WriteBatcher((docs: object[]) => insertIgnoringDuplicates(events, docs));
  const deliveryWrites = new WriteBatcher((docs: object[]) => insertIgnoringDuplicates(deliveries, docs));

  const nc = await connect({ servers: DURABLE_NATS_URL, name: 'bench-webhooks-durable' });
  const jsm = await nc.jetstreamManager();
  // The platform's stream settings (runtime ensureStream) and consumer settings (runDurableConsumer).
  await jsm.streams.add({
    name: DURABLE_STREAM,
    subjects: [DURABLE_SUBJECT],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    duplicate_window: nanos(2 * 60 * 1000),
    max_age: nanos(30 * 24 * 60 * 60 * 1000),
  });
  await jsm.consumers.add(DURABLE_STREAM, {
    durable_name: 'durable_loop',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: DURABLE_SUBJECT,
    max_deliver: -1,
    ack_wait: nanos(30_000),
  });
  const consumer = await nc.jetstream().consumers.get(DURABLE_STREAM, 'durable_loop');
  const messages = await consumer.consume({ max_messages: EVENTS_IN_FLIGHT });
  const codec = JSONCodec<DurableEnvelope>();

  const handle = async (msg: JsMsg) => {
    const envelope = codec.decode(msg.data);
    const receiver = receivers.get(envelope.merchant_id);
    if (!receiver) throw new Error(`no receiver for merchant ${envelope.merchant_id}`);
    const event = eventDocument(envelope, 'payment.failed', msg.info.streamSequence, new Date());
    await eventWrites.add(event);
    const startedAt = new Date();
    const request = signedRequest(event, envelope.data, receiver, startedAt);
    const result = await post(receiver, request);
    await deliveryWrites.add(deliveryDocument(event, receiver, request, result, startedAt, new Date()));
  };

  process.on('SIGTERM', () => {
    void messages
      .close()
      .then(() => nc.drain())
      .then(() => client.close())
      .finally(() => process.exit(0));
  });
  process.stdout.write('ready\n');

  const inflight = new Set<Promise<void>>();
  for await (const msg of messages) {
    const run = handle(msg)
      .then(
        () => msg.ack(),
        (err: unknown) => {
          process.stderr.write(`durable baseline: ${String(err)}\n`);
          msg.nak(1_000);
        },
      )
      .finally(() => inflight.delete(run));
    inflight.add(run);
    if (inflight.size >= EVENTS_IN_FLIGHT) await Promise.race(inflight);
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`durable baseline failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
