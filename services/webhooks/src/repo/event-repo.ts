import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type FilterQuery, type Model } from 'mongoose';
import { isDuplicateKeyError, type Mode } from '@ppay/kernel';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  ClaimOptions,
  CreatedAfterQuery,
  DeliveryStore,
  EventQuery,
  EventStore,
  RequeueFilter,
  SequenceCounter,
} from '../domain/ports';
import type { DeliveryRecord, DeliveryStatus, WebhookEventRecord } from '../domain/webhook-event';

interface EventDocument extends Omit<WebhookEventRecord, 'event_id'> {
  _id: string;
}

const eventSchema = new Schema<EventDocument>(
  {
    _id: { type: String, required: true },
    event_type: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    occurred_at: { type: Date, required: true },
    object_type: { type: String, required: true },
    object_id: { type: String, required: true },
    sequence: { type: Number, required: true },
    data: { type: Schema.Types.Mixed, required: true },
    source_event_id: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_events', minimize: false },
);
eventSchema.index({ merchant_id: 1, mode: 1, occurred_at: -1, _id: -1 });
eventSchema.index({ created_at: 1 });
// The `listen` stream scans one merchant's newest events in creation order.
eventSchema.index({ merchant_id: 1, mode: 1, created_at: 1, _id: 1 });

interface DeliveryDocument extends Omit<DeliveryRecord, 'delivery_id'> {
  _id: string;
}

const attemptSchema = new Schema(
  {
    number: Number,
    started_at: Date,
    duration_ms: { type: Number, default: null },
    status: { type: Number, default: null },
    error_class: { type: String, default: null },
    success: Boolean,
    response_excerpt: String,
    url: String,
    api_version: String,
    request_headers: { type: Schema.Types.Mixed, default: {} },
    request_body: String,
  },
  { _id: false, minimize: false },
);

const deliverySchema = new Schema<DeliveryDocument>(
  {
    _id: { type: String, required: true },
    event_id: { type: String, required: true },
    key_id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    event_type: { type: String, required: true },
    status: { type: String, required: true },
    attempt_count: { type: Number, required: true },
    round_attempts: { type: Number, required: true },
    next_attempt_at: { type: Date, required: true },
    claim_token: { type: String, default: null },
    claimed_at: { type: Date, default: null },
    attempts: { type: [attemptSchema], default: [] },
    last_error_class: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_deliveries' },
);
// The worker's claim query: due work, oldest first.
deliverySchema.index({ status: 1, next_attempt_at: 1 });
deliverySchema.index({ claim_token: 1 });
deliverySchema.index({ event_id: 1, key_id: 1 }, { unique: true });
deliverySchema.index({ merchant_id: 1, mode: 1, status: 1, created_at: -1 });
deliverySchema.index({ created_at: 1 });

interface CounterDocument {
  _id: string;
  value: number;
}

const counterSchema = new Schema<CounterDocument>(
  { _id: { type: String, required: true }, value: { type: Number, required: true } },
  { versionKey: false, collection: 'webhook_sequences' },
);

export type EventModel = Model<EventDocument>;
export type DeliveryModel = Model<DeliveryDocument>;
export type CounterModel = Model<CounterDocument>;

export function webhookModels(conn: Connection) {
  return {
    events: conn.model<EventDocument>('WebhookEvent', eventSchema),
    deliveries: conn.model<DeliveryDocument>('WebhookDelivery', deliverySchema),
    counters: conn.model<CounterDocument>('WebhookSequence', counterSchema),
  };
}

function toEvent(doc: EventDocument): WebhookEventRecord {
  const { _id, ...rest } = doc;
  return { event_id: _id, ...rest };
}

function toDelivery(doc: DeliveryDocument): DeliveryRecord {
  const { _id, ...rest } = doc;
  return { delivery_id: _id, ...rest, attempts: rest.attempts ?? [] };
}

async function deleteBatch(model: Model<any>, before: Date, limit: number): Promise<number> {
  const old = (await model
    .find({ created_at: { $lt: before } }, { _id: 1 })
    .limit(limit)
    .lean()
    .exec()) as {
    _id: string;
  }[];
  if (!old.length) return 0;
  const res = await model.deleteMany({ _id: { $in: old.map((d) => d._id) } }).exec();
  return res.deletedCount ?? 0;
}

export class MongoEventStore implements EventStore {
  constructor(readonly model: EventModel) {}

  async insert(event: WebhookEventRecord): Promise<boolean> {
    const { event_id, ...rest } = event;
    try {
      await this.model.create({ _id: event_id, ...rest });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async get(eventId: string): Promise<WebhookEventRecord | null> {
    const doc = (await this.model.findById(eventId).lean().exec()) as EventDocument | null;
    return doc ? toEvent(doc) : null;
  }

  async getForMerchant(merchantId: number, mode: Mode, eventId: string): Promise<WebhookEventRecord | null> {
    const doc = (await this.model
      .findOne({ _id: eventId, merchant_id: merchantId, mode })
      .lean()
      .exec()) as EventDocument | null;
    return doc ? toEvent(doc) : null;
  }

  async list(q: EventQuery): Promise<WebhookEventRecord[]> {
    const filter: FilterQuery<EventDocument> = { merchant_id: q.merchant_id, mode: q.mode };
    if (q.types?.length) filter.event_type = { $in: q.types };
    if (q.from || q.to) {
      filter.occurred_at = { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lt: q.to } : {}) };
    }
    if (q.event_ids) filter._id = { $in: q.event_ids };
    if (q.before) {
      filter.$or = [
        { occurred_at: { $lt: q.before.occurred_at } },
        { occurred_at: q.before.occurred_at, _id: { $lt: q.before.event_id } },
      ];
    }
    const docs = (await this.model
      .find(filter)
      .sort({ occurred_at: -1, _id: -1 })
      .limit(q.limit)
      .lean()
      .exec()) as EventDocument[];
    return docs.map(toEvent);
  }

  async listCreatedAfter(q: CreatedAfterQuery): Promise<WebhookEventRecord[]> {
    const filter: FilterQuery<EventDocument> = {
      merchant_id: q.merchant_id,
      mode: q.mode,
      $or: [
        { created_at: { $gt: q.after.created_at, $lt: q.until } },
        { created_at: q.after.created_at, _id: { $gt: q.after.event_id } },
      ],
    };
    const docs = (await this.model
      .find(filter)
      .sort({ created_at: 1, _id: 1 })
      .limit(q.limit)
      .lean()
      .exec()) as EventDocument[];
    // The second branch may hold an event at exactly `after` that is not yet before `until`.
    return docs.map(toEvent).filter((e) => e.created_at < q.until);
  }

  deleteOlderThan(before: Date, limit: number): Promise<number> {
    return deleteBatch(this.model, before, limit);
  }
}

export class MongoSequenceCounter implements SequenceCounter {
  constructor(readonly model: CounterModel) {}

  async next(key: string): Promise<number> {
    const doc = await this.model
      .findOneAndUpdate({ _id: key }, { $inc: { value: 1 } }, { upsert: true, new: true })
      .lean()
      .exec();
    return doc!.value;
  }
}

const CLAIMABLE: DeliveryStatus[] = ['pending', 'delivering'];

export class MongoDeliveryStore implements DeliveryStore {
  constructor(readonly model: DeliveryModel) {}

  async insertMany(deliveries: DeliveryRecord[]): Promise<number> {
    const docs = deliveries.map(({ delivery_id, ...rest }) => ({ _id: delivery_id, ...rest }));
    try {
      const res = await this.model.insertMany(docs, { ordered: false, rawResult: true });
      return res.insertedCount;
    } catch (err) {
      // Some already existed (a redelivered event): the rest were written.
      const e = err as {
        code?: number;
        writeErrors?: { code?: number; err?: { code?: number } }[];
        insertedDocs?: unknown[];
        result?: { insertedCount?: number };
      };
      const errors = e.writeErrors ?? [];
      const allDuplicates =
        (isDuplicateKeyError(err) || errors.length > 0) && errors.every((w) => (w.code ?? w.err?.code) === 11000);
      if (!allDuplicates) throw err;
      return e.result?.insertedCount ?? e.insertedDocs?.length ?? deliveries.length - errors.length;
    }
  }

  async claim(o: ClaimOptions): Promise<ClaimedDelivery[]> {
    const full = [...o.keyRoom].filter(([, room]) => room <= 0).map(([key]) => key);
    // One query per status with an equality filter: FerretDB (SQLite) pushes equality down, so a
    // claim reads only the pending (or in-flight) documents, never the finished log.
    const find = (status: DeliveryStatus) =>
      this.model
        .find(
          { status, next_attempt_at: { $lte: o.now }, ...(full.length ? { key_id: { $nin: full } } : {}) },
          { _id: 1, key_id: 1, status: 1, claimed_at: 1, next_attempt_at: 1 },
        )
        .sort({ next_attempt_at: 1 })
        .limit(o.limit * 4)
        .lean()
        .exec() as Promise<Pick<DeliveryDocument, '_id' | 'key_id' | 'status' | 'claimed_at' | 'next_attempt_at'>[]>;
    const [expired, pending] = await Promise.all([find('delivering'), find('pending')]);
    const candidates = [...expired, ...pending];
    const room = new Map(o.keyRoom);
    const picked: typeof candidates = [];
    for (const c of candidates) {
      if (picked.length >= o.limit) break;
      const left = room.get(c.key_id) ?? o.perKeyLimit;
      if (left <= 0) continue;
      room.set(c.key_id, left - 1);
      picked.push(c);
    }
    if (!picked.length) return [];
    const token = `${o.owner}:${randomUUID()}`;
    const claim = {
      $set: {
        status: 'delivering',
        claim_token: token,
        claimed_at: o.now,
        next_attempt_at: o.leaseUntil,
        updated_at: o.now,
      },
      $inc: { attempt_count: 1, round_attempts: 1 },
    };
    // Conditional on still being due: of two replicas racing for a document, only one matches.
    for (const status of ['delivering', 'pending'] as const) {
      const ids = picked.filter((c) => c.status === status).map((c) => c._id);
      if (ids.length) {
        await this.model.updateMany({ status, _id: { $in: ids }, next_attempt_at: { $lte: o.now } }, claim).exec();
      }
    }
    const mine = (await this.model.find({ claim_token: token }).lean().exec()) as DeliveryDocument[];
    const before = new Map(picked.map((c) => [c._id, c]));
    return mine.map((doc) => {
      const was = before.get(doc._id);
      return {
        delivery: toDelivery(doc),
        claim_token: token,
        interrupted: was?.status === 'delivering' ? { started_at: was.claimed_at ?? doc.created_at } : null,
      };
    });
  }

  async complete(deliveryId: string, claimToken: string, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    const res = await this.model
      .updateOne(
        { _id: deliveryId, claim_token: claimToken },
        {
          $set: {
            status: outcome.status,
            next_attempt_at: outcome.next_attempt_at,
            claim_token: null,
            last_error_class: outcome.last_error_class,
            updated_at: now,
          },
          ...(outcome.round_attempts_delta ? { $inc: { round_attempts: outcome.round_attempts_delta } } : {}),
          ...(outcome.attempts.length ? { $push: { attempts: { $each: outcome.attempts } } } : {}),
        },
      )
      .exec();
    return res.matchedCount === 1;
  }

  async forEvent(eventId: string): Promise<DeliveryRecord[]> {
    const docs = (await this.model
      .find({ event_id: eventId })
      .sort({ created_at: 1, _id: 1 })
      .lean()
      .exec()) as DeliveryDocument[];
    return docs.map(toDelivery);
  }

  async eventIdsWithStatus(merchantId: number, mode: Mode, status: DeliveryStatus, limit: number): Promise<string[]> {
    const docs = (await this.model
      .find({ merchant_id: merchantId, mode, status }, { event_id: 1 })
      .sort({ created_at: -1 })
      .limit(limit)
      .lean()
      .exec()) as { event_id: string }[];
    return [...new Set(docs.map((d) => d.event_id))];
  }

  private filterOf(f: RequeueFilter): FilterQuery<DeliveryDocument> {
    const filter: FilterQuery<DeliveryDocument> = {
      merchant_id: f.merchant_id,
      mode: f.mode,
      status: { $in: f.statuses },
    };
    if (f.event_id) filter.event_id = f.event_id;
    if (f.created_from || f.created_to) {
      filter.created_at = {
        ...(f.created_from ? { $gte: f.created_from } : {}),
        ...(f.created_to ? { $lte: f.created_to } : {}),
      };
    }
    return filter;
  }

  async requeue(f: RequeueFilter, now: Date): Promise<number> {
    const res = await this.model
      .updateMany(this.filterOf(f), {
        $set: { status: 'pending', next_attempt_at: now, round_attempts: 0, updated_at: now },
      })
      .exec();
    return res.modifiedCount;
  }

  count(f: RequeueFilter): Promise<number> {
    return this.model.countDocuments(this.filterOf(f)).exec();
  }

  async pendingCount(): Promise<number> {
    const counts = await Promise.all(CLAIMABLE.map((status) => this.model.countDocuments({ status }).exec()));
    return counts.reduce((a, b) => a + b, 0);
  }

  deleteOlderThan(before: Date, limit: number): Promise<number> {
    return deleteBatch(this.model, before, limit);
  }
}
