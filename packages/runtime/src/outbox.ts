import mongoose, { Schema, type Model } from 'mongoose';
import { context, propagation } from '@opentelemetry/api';
import { setTraceparentSource, type EventEnvelope, type OutboxEntry } from '@ppay/kernel';
import type { Logger } from './logger';
import type { PlatformMetrics } from './metrics';
import { publishEvent, type NatsContext } from './nats';
import { FERRETDB_SQL_PUSHDOWN } from './mongo';

/**
 * Transactional outbox inside the aggregate document: the state change and the events it causes
 * are one single-document write. A relay publishes each event to JetStream (Nats-Msg-Id = event_id)
 * and then pulls it from the document. A crash between the two re-publishes the same event id,
 * which the server drops inside the duplicate window and idempotent consumers drop after it.
 *
 * Every aggregate schema with an `outbox` also gets `outbox_pending_since` (indexed) from the
 * `outboxPlugin` below, set by any write that adds events and cleared by the relay once the outbox
 * is empty, so the full sweep is an index range scan on MongoDB however large the collection grows
 * (and in SQL on the local FerretDB, with FERRETDB_SQL_PUSHDOWN; unpatched FerretDB reads every document
 * for it: see `OutboxRelay` for why it runs rarely).
 */
export const outboxEntrySchema = new Schema<OutboxEntry>(
  {
    event_id: { type: String, required: true },
    subject: { type: String, required: true },
    occurred_at: { type: Date, required: true },
    merchant_id: Number,
    mode: String,
    data: { type: Schema.Types.Mixed, required: true },
    traceparent: String,
  },
  { _id: false },
);

// Events written by domain code carry the traceparent of the request that caused them.
setTraceparentSource(() => {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
});

const PENDING = 'outbox_pending_since';

/** The relay's fields of a stored aggregate: its unpublished events and the pending mark. */
export interface RelayFields {
  outbox?: unknown;
  outbox_pending_since?: Date | null;
}

/**
 * A stored aggregate without what belongs to the relay: repositories read records through it, because
 * a record that carried the pending mark back into a later `$set` would hide events the write pushes.
 */
export function withoutRelayFields<T extends RelayFields>(doc: T): Omit<T, keyof RelayFields> {
  const { outbox: _outbox, outbox_pending_since: _pending, ...rest } = doc;
  return rest;
}

type UpdateShape = Record<string, Record<string, unknown> | undefined>;

/** Marks the document pending when an update adds outbox events ($push, or $set of the array). */
function markPending(update: UpdateShape | undefined): UpdateShape | undefined {
  if (!update || Array.isArray(update)) return update;
  const adds = update.$push?.outbox !== undefined || update.$addToSet?.outbox !== undefined;
  if (!adds || update.$set?.[PENDING] !== undefined) return update;
  return { ...update, $set: { ...update.$set, [PENDING]: new Date() } };
}

/**
 * Applied to every schema that has an `outbox` array of `outboxEntrySchema` (registered globally
 * below, so no repository can forget it): the indexed pending-since field and the middleware that
 * sets it.
 */
export function outboxPlugin(schema: Schema): void {
  // Mongoose may hold a copy of the entry schema: recognise it by its shape.
  const entries = (schema.path('outbox') as unknown as { schema?: Schema } | undefined)?.schema;
  if (!entries?.path('event_id') || !entries.path('subject') || !entries.path('traceparent')) return;
  schema.add({ [PENDING]: { type: Date, default: null } });
  schema.index({ [PENDING]: 1 });
  schema.pre('save', function () {
    const doc = this as unknown as { outbox?: unknown[]; [PENDING]?: Date | null };
    if (doc.outbox?.length && !doc[PENDING]) doc[PENDING] = new Date();
  });
  schema.pre(['findOneAndUpdate', 'updateOne', 'updateMany'], function () {
    this.setUpdate(markPending(this.getUpdate() as UpdateShape) as never);
  });
}
mongoose.plugin(outboxPlugin);

interface WithOutbox {
  _id: unknown;
  outbox?: OutboxEntry[];
}

interface DeadLetter {
  _id: string; // event_id: one dead letter per event, however often it is tried
  source_collection: string;
  aggregate_id: unknown;
  entry: OutboxEntry;
  error: string;
  dead_at: Date;
}

const deadLetterSchema = new Schema<DeadLetter>(
  {
    _id: { type: String, required: true },
    source_collection: { type: String, required: true },
    aggregate_id: { type: Schema.Types.Mixed, required: true },
    entry: { type: Schema.Types.Mixed, required: true },
    error: { type: String, required: true },
    dead_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'outbox_dead_letters' },
);

/** The relay's sweep looks only at documents pending for longer than this (the fast path had its chance). */
const SWEEP_GRACE_MS = 1_000;
const EARLIEST_DATE = new Date(-8_640_000_000_000_000);

/** Documents whose fast path failed, kept for the next retry pass; beyond this the full sweep finds them. */
const MAX_RETRY_IDS = 10_000;

/**
 * Relays one collection's outbox. Each document is relayed on its own: an event that cannot be
 * published never holds back the others. An event that can never be published (larger than the
 * server's max_payload) is moved to `outbox_dead_letters` (counted, alerted on) instead of being
 * retried forever; any other failure (NATS down) is retried.
 *
 * Three paths, cheapest first: the fast path right after the write; every `sweepIntervalMs` a retry
 * of the documents whose fast path failed in this process, each read by `_id`; and every
 * `fullSweepEvery` passes (and at start) the full sweep over the pending-since index, which finds
 * what no retry knows of (a process that crashed after its write, another replica's). The full
 * sweep is rare because a MongoDB-wire server without range pushdown (FerretDB) reads the whole
 * collection for it, whatever the index.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private passes = 0;
  private readonly retryIds = new Map<string, unknown>();
  private readonly deadLetters: Model<DeadLetter>;

  constructor(
    private readonly model: Model<any>,
    private readonly nats: NatsContext,
    private readonly log: Logger,
    private readonly metrics: PlatformMetrics,
    private readonly sweepIntervalMs = 2_000,
    private readonly fullSweepEvery = 15,
  ) {
    this.deadLetters =
      (model.db.models.OutboxDeadLetter as Model<DeadLetter> | undefined) ??
      model.db.model<DeadLetter>('OutboxDeadLetter', deadLetterSchema);
  }

  get collection(): string {
    return this.model.collection.collectionName;
  }

  start(): void {
    // Documents written before the pending-since field existed are found once, at boot.
    void this.model
      .updateMany({ 'outbox.0': { $exists: true }, [PENDING]: null }, { $set: { [PENDING]: new Date(0) } })
      .exec()
      .catch((err: unknown) => this.log.warn({ err }, 'outbox pending-since backfill failed'));
    const pass = () => {
      const full = this.passes++ % this.fullSweepEvery === 0;
      this.sweeping ??= (full ? this.sweep() : this.retryFailed()).finally(() => (this.sweeping = undefined));
    };
    pass();
    this.timer = setInterval(pass, this.sweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** Fast path right after a write; failures are left to the sweep. */
  relaySoon(id: unknown): void {
    this.relayDocument(id).catch((err: unknown) => {
      this.log.warn({ err }, 'outbox relay deferred to the retry pass');
      if (this.retryIds.size < MAX_RETRY_IDS) this.retryIds.set(String(id), id);
    });
  }

  /** The documents whose fast path failed here, by `_id`; what fails again stays for the next pass. */
  async retryFailed(): Promise<void> {
    for (const [key, id] of [...this.retryIds]) {
      try {
        await this.relayDocument(id);
        this.retryIds.delete(key);
      } catch (err) {
        this.log.warn({ err, collection: this.collection }, 'outbox document not relayed; next pass retries');
        return; // NATS is most likely still down: the rest would fail the same way
      }
    }
  }

  async relayDocument(id: unknown): Promise<void> {
    const doc = (await this.model.findById(id, { outbox: 1 }).lean().exec()) as WithOutbox | null;
    if (doc?.outbox?.length) await this.publishAll(doc);
  }

  async sweep(): Promise<void> {
    try {
      // `$lte` a date matches dates only (never null), and `$gte` the earliest date every date: the
      // pending-since field holds a date or null. Both queries are index range scans on MongoDB and, with
      // the pushdown comment, in SQL on the local FerretDB (which otherwise reads every document in Go:
      // seconds per sweep for a collection of 100,000).
      const due = { [PENDING]: { $lte: new Date(Date.now() - SWEEP_GRACE_MS) } };
      const [docs, counted] = await Promise.all([
        this.model
          .find(due, { outbox: 1, [PENDING]: 1 })
          .sort({ [PENDING]: 1 })
          .limit(200)
          .comment(FERRETDB_SQL_PUSHDOWN)
          .lean()
          .exec(),
        this.model.db.db!.command({
          count: this.collection,
          query: { [PENDING]: { $gte: EARLIEST_DATE } },
          comment: FERRETDB_SQL_PUSHDOWN,
        }),
      ]);
      const pending = Number(counted.n);
      this.metrics.outboxPending.set({ collection: this.collection }, pending);
      const oldest = (docs[0] as { [PENDING]?: Date } | undefined)?.[PENDING];
      this.metrics.outboxOldestPendingSeconds.set(
        { collection: this.collection },
        oldest ? Math.max(0, (Date.now() - new Date(oldest).getTime()) / 1000) : 0,
      );
      for (const doc of docs as WithOutbox[]) {
        try {
          await this.publishAll(doc);
          this.retryIds.delete(String(doc._id));
        } catch (err) {
          this.log.warn({ err, collection: this.collection }, 'outbox document not relayed; next sweep retries');
        }
      }
    } catch (err) {
      this.log.warn({ err }, 'outbox sweep failed');
    }
  }

  private async publishAll(doc: WithOutbox): Promise<void> {
    for (const entry of doc.outbox ?? []) {
      const envelope = {
        event_id: entry.event_id,
        subject: entry.subject,
        occurred_at: new Date(entry.occurred_at).toISOString(),
        merchant_id: entry.merchant_id,
        mode: entry.mode,
        data: entry.data,
      } as EventEnvelope;
      const maxPayload = this.nats.nc.info?.max_payload ?? Infinity;
      const size = Buffer.byteLength(JSON.stringify(envelope));
      if (size > maxPayload) {
        await this.deadLetter(doc, entry, `event of ${size} bytes exceeds the server's max_payload of ${maxPayload}`);
        continue;
      }
      try {
        await publishEvent(this.nats, envelope, { traceparent: entry.traceparent, metrics: this.metrics });
      } catch (err) {
        this.metrics.outboxPublishFailures.inc({ collection: this.collection });
        throw err;
      }
      await this.remove(doc, entry);
      this.metrics.outboxRelayed.inc({ collection: this.collection });
    }
    // The last event is gone: stop being pending (unless a new one arrived meanwhile).
    await this.model.updateOne({ _id: doc._id, 'outbox.0': { $exists: false } }, { $set: { [PENDING]: null } }).exec();
  }

  /** $pullAll with the element exactly as stored: FerretDB v1 ignores condition-style $pull. */
  private async remove(doc: WithOutbox, entry: OutboxEntry): Promise<void> {
    await this.model.updateOne({ _id: doc._id }, { $pullAll: { outbox: [entry] } }).exec();
  }

  /**
   * Records the event as undeliverable, then takes it out of the outbox. A crash between the two
   * leaves it in the outbox: the next sweep dead-letters it again (same id, so one record) and pulls it.
   */
  private async deadLetter(doc: WithOutbox, entry: OutboxEntry, error: string): Promise<void> {
    await this.deadLetters
      .updateOne(
        { _id: entry.event_id },
        {
          $setOnInsert: {
            source_collection: this.collection,
            aggregate_id: doc._id,
            entry,
            error,
            dead_at: new Date(),
          },
        },
        { upsert: true },
      )
      .exec();
    await this.remove(doc, entry);
    this.metrics.outboxDeadLetters.inc({ collection: this.collection, subject: entry.subject });
    this.log.error({ event_id: entry.event_id, subject: entry.subject, error }, 'outbox event dead-lettered');
  }
}
