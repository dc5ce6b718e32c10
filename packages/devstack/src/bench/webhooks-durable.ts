import type { ChildProcess } from 'node:child_process';
import { mongo } from 'mongoose';
import { dbWork, type DbSnapshot, type DbWork } from './db-work';
import { startHelper } from './helper-process';
import { cpuByProcess } from './process-metrics';
import { DURABLE_DB, type DurableReceiver } from './webhooks-durable-docs';
import { meanEntries, type SideFigures } from './webhooks-report';

/**
 * The bench side of the durable baseline of `bench -- webhooks` (the loop itself is
 * webhooks-durable-loop.ts, its own process), and the burst measurement both the platform and the
 * baseline go through, so the two are measured alike.
 */

export function startDurableLoop(o: {
  mongoUri: string;
  natsUrl: string;
  receivers: DurableReceiver[];
}): Promise<ChildProcess> {
  return startHelper('webhooks-durable-loop.js', [], {
    DURABLE_MONGO_URI: o.mongoUri,
    DURABLE_NATS_URL: o.natsUrl,
    DURABLE_RECEIVERS: JSON.stringify(o.receivers),
  });
}

export interface Burst extends SideFigures {
  events: number;
  seconds: number;
  /** Every event received by the sinks. */
  done: boolean;
  db: DbWork;
}

/** Time allowed after the last receipt for the last batch of outcomes to be stored before the documents are counted. */
const SETTLE_MS = 1_000;

/**
 * `n` events published as fast as JetStream takes them (100 at a time), timed to the sinks' last
 * receipt, with the CPU of every named process per delivery over that time and the database commands
 * and documents per delivery (counted once the last outcomes are stored).
 */
export async function measureBurst(o: {
  n: number;
  publish: (i: number) => Promise<unknown>;
  received: () => number;
  waitFor: (count: number, timeoutMs: number) => Promise<boolean>;
  pids: Map<string, number>;
  snapshot: () => Promise<DbSnapshot>;
}): Promise<Burst> {
  const dbBefore = await o.snapshot();
  const before = o.received();
  const cpu = cpuByProcess(o.pids);
  const t0 = Date.now();
  for (let i = 0; i < o.n; i += 100)
    await Promise.all(Array.from({ length: Math.min(100, o.n - i) }, (_, j) => o.publish(i + j)));
  const done = await o.waitFor(before + o.n, 120_000);
  const seconds = (Date.now() - t0) / 1000;
  const byProcess = cpu.entries(o.n);
  const rate = (o.received() - before) / seconds;
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return { events: o.n, rate, seconds, done, cpu: byProcess, db: dbWork(dbBefore, await o.snapshot(), o.n) };
}

/** One side's bursts of equal size as one: deliveries over their total time, the mean per delivery. */
export function combineBursts(bursts: Burst[]): Burst & { rates: number[] } {
  const events = bursts.reduce((sum, b) => sum + b.events, 0);
  const seconds = bursts.reduce((sum, b) => sum + b.seconds, 0);
  return {
    events,
    seconds,
    rate: events / seconds,
    rates: bursts.map((b) => b.rate),
    done: bursts.every((b) => b.done),
    cpu: meanEntries(bursts.map((b) => b.cpu)),
    db: {
      commands: meanEntries(bursts.map((b) => b.db.commands)),
      documents: meanEntries(bursts.map((b) => b.db.documents)),
    },
  };
}

/** "event 12 fields 1,234 B, delivery 18 fields 2,345 B": one stored document of each kind. */
async function shapes(db: mongo.Db, events: string, deliveries: string): Promise<string> {
  const one = async (collection: string, label: string) => {
    const doc = await db.collection(collection).findOne({});
    if (!doc) return `${label} none`;
    return `${label} ${Object.keys(doc).length} fields ${mongo.BSON.calculateObjectSize(doc).toLocaleString('en-US')} B`;
  };
  return `${await one(events, 'event')}, ${await one(deliveries, 'delivery')}`;
}

/** What each side stores per delivery, read back from the database: the baseline must match the platform's shape. */
export async function storedShapes(mongoUri: string): Promise<string> {
  const client = await mongo.MongoClient.connect(mongoUri);
  try {
    const platform = await shapes(client.db('ppay_webhooks'), 'webhook_events', 'webhook_deliveries');
    const durable = await shapes(client.db(DURABLE_DB), 'events', 'deliveries');
    return `platform: ${platform}; durable baseline: ${durable}`;
  } finally {
    await client.close();
  }
}
