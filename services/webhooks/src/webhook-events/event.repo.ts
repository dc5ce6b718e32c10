import { Schema, type Connection, type FilterQuery, type Model } from 'mongoose';
import { type Mode } from '@ppay/kernel';
import { isDuplicateKeyError } from '@ppay/runtime';
import type { CreatedAfterQuery, EventQuery, EventStore, ResendSlot } from '../ports';
import { aboutMerchant, type WebhookEventRecord } from './webhook-event';
import { deleteBatch, insertIgnoringDuplicates } from '../bulk-writes.repo';

interface EventDocument extends Omit<WebhookEventRecord, 'event_id' | 'data'> {
  _id: string;
  /**
   * The canonical payload as one JSON string: never queried by its fields, and FerretDB's cost per
   * inserted document grows with its number of fields (docs/decisions.md, Webhooks 56). Older
   * documents hold it as an object.
   */
  data: string | Record<string, unknown>;
  /** The payload's `merchant_id` (the merchant the event is about), for delete merchant: see merchant-data. */
  about_merchant_id?: number | null;
  /** The resend quota's window (EventStore.takeResend); absent until the first resend. */
  resend_window_start?: Date | null;
  resend_count?: number;
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
    about_merchant_id: { type: Number, default: null },
    resend_window_start: { type: Date },
    resend_count: { type: Number },
  },
  { versionKey: false, collection: 'webhook_events', minimize: false },
);
eventSchema.index({ merchant_id: 1, mode: 1, occurred_at: -1, _id: -1 });
eventSchema.index({ created_at: 1 });
// The `listen` stream scans one merchant's newest events in creation order.
eventSchema.index({ merchant_id: 1, mode: 1, created_at: 1, _id: 1 });

export type EventModel = Model<EventDocument>;

export function eventModel(conn: Connection): EventModel {
  return conn.model<EventDocument>('WebhookEvent', eventSchema);
}

function toEvent(doc: EventDocument): WebhookEventRecord {
  const { _id, data, about_merchant_id: _about, resend_window_start: _window, resend_count: _count, ...rest } = doc;
  return {
    event_id: _id,
    ...rest,
    data: typeof data === 'string' ? (JSON.parse(data) as Record<string, unknown>) : data,
  };
}

function toDocument(event: WebhookEventRecord): EventDocument {
  const { event_id, data, ...rest } = event;
  return { _id: event_id, ...rest, data: JSON.stringify(data), about_merchant_id: aboutMerchant(event) };
}

/**
 * Boot clean-up: `webhook_sequences` held one counter per object (charge, wallet, subscription ids)
 * until `sequence` became the source's stream position. Nothing reads it any more and
 * delete merchant never covered it, so it goes. A replica of the older version still running during a
 * rolling upgrade recreates it with its next event; the next start drops it again.
 */
export async function dropSequenceCounters(conn: Connection): Promise<boolean> {
  const exists = (await conn.db!.listCollections({ name: 'webhook_sequences' }).toArray()).length > 0;
  if (exists) await conn.db!.dropCollection('webhook_sequences');
  return exists;
}

export class MongoEventStore implements EventStore {
  constructor(readonly model: EventModel) {}

  async insert(event: WebhookEventRecord): Promise<boolean> {
    try {
      await this.model.create(toDocument(event));
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async insertMany(events: WebhookEventRecord[]): Promise<Set<string>> {
    const docs = events.map(toDocument);
    const duplicates = await insertIgnoringDuplicates(this.model, docs);
    return new Set(docs.filter((_, i) => !duplicates.has(i)).map((d) => d._id));
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

  /** Two conditional writes by `_id` (each a key lookup): a place in the open window, or a new window. */
  async takeResend(eventId: string, now: Date, quota: { max: number; windowMs: number }): Promise<ResendSlot> {
    const opened = new Date(now.getTime() - quota.windowMs);
    const inWindow = await this.model
      .updateOne(
        { _id: eventId, resend_window_start: { $gt: opened }, resend_count: { $lt: quota.max } },
        { $inc: { resend_count: 1 } },
      )
      .exec();
    if (inWindow.modifiedCount) return { taken: true };
    const fresh = await this.model
      .updateOne(
        { _id: eventId, resend_window_start: { $not: { $gt: opened } } },
        { $set: { resend_window_start: now, resend_count: 1 } },
      )
      .exec();
    if (fresh.modifiedCount) return { taken: true };
    const doc = (await this.model.findById(eventId, { resend_window_start: 1 }).lean().exec()) as {
      resend_window_start?: Date | null;
    } | null;
    return { taken: false, windowEndsAt: new Date((doc?.resend_window_start ?? now).getTime() + quota.windowMs) };
  }
}
