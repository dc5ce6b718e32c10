import { Schema, type Connection, type Model } from 'mongoose';
import { type Mode, type OutboxEntry } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN, isDuplicateKeyError, moneySchema } from '@ppay/runtime';
import { EPOCH, SCHEDULED_DOCUMENT_FIELDS, ScheduledDocuments } from '../renewals/leased-documents.repo';
import type { ListQuery, SortSpec } from './list-query';
import type { SubscriptionRepository } from './ports';
import { nextActionAt, type SubscriptionRecord } from './subscription';

interface SubscriptionDocument extends Omit<SubscriptionRecord, 'id'> {
  _id: string;
  /** `session:<checkout session>` or `id:<_id>`: unique, so one checkout makes one subscription. */
  origin_ref: string;
  /** When the scheduler next acts, on the subscription's clock (nextActionAt). */
  next_action_at: Date | null;
  /** The same instant in real time (next_action_at − clock offset): what the scheduler's query compares. */
  wake_at: Date | null;
  lease_owner: string | null;
  /** The lease is free once this has passed (epoch when never taken). */
  lease_until: Date;
  outbox: OutboxEntry[];
}

const Mixed = Schema.Types.Mixed;

const subscriptionSchema = new Schema<SubscriptionDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    status: { type: String, required: true },
    payment_status: { type: String, required: true },
    frequency: { type: String, required: true },
    product: { type: Mixed, required: true },
    customer: { type: Mixed, required: true },
    amount: { type: moneySchema, required: true },
    metadata: { type: Mixed, default: {} },
    checkout_session_id: { type: String, default: null },
    payment_method_id: { type: String, default: null },
    card: { type: Mixed, default: null },
    trial_days: { type: Number, default: null },
    billing_anchor: { type: Date, default: null },
    current_period: { type: Mixed, default: null },
    pending_period: { type: Mixed, default: null },
    next_payment_date: { type: Date, default: null },
    access_until: { type: Date, default: null },
    trial_start: { type: Date, default: null },
    trial_end: { type: Date, default: null },
    last_payment_at: { type: Date, default: null },
    cancel_at_period_end: { type: Boolean, default: false },
    cancel_at: { type: Date, default: null },
    cancelled_at: { type: Date, default: null },
    paused_at: { type: Date, default: null },
    pause_reason: { type: String, default: null },
    failed_attempts: { type: Number, default: 0 },
    first_failure_at: { type: Date, default: null },
    next_retry_at: { type: Date, default: null },
    decline_reason: { type: String, default: null },
    attempts_left: { type: Number, required: true },
    clock_offset_ms: { type: Number, default: 0 },
    version: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    origin_ref: { type: String, required: true },
    ...SCHEDULED_DOCUMENT_FIELDS,
  },
  { versionKey: false, collection: 'subscriptions', minimize: false },
);
subscriptionSchema.index({ origin_ref: 1 }, { unique: true });
// The scheduler's claim: due (in real time) and not leased.
subscriptionSchema.index({ wake_at: 1, lease_until: 1 });
// GET /subscriptions (spec 4.5): one index per sort key, each ending with the tie-breaks, so a sorted page
// is a range scan of (merchant, mode) in index order; filtered lists use the status / product prefixes.
subscriptionSchema.index({ merchant_id: 1, mode: 1, created_at: 1, _id: 1 });
subscriptionSchema.index({ merchant_id: 1, mode: 1, next_payment_date: 1, created_at: 1, _id: 1 });
subscriptionSchema.index({ merchant_id: 1, mode: 1, 'amount.amount': 1, created_at: 1, _id: 1 });
subscriptionSchema.index({ merchant_id: 1, mode: 1, payment_status: 1, created_at: 1, _id: 1 });
subscriptionSchema.index({ merchant_id: 1, mode: 1, status: 1, created_at: 1, _id: 1 });
subscriptionSchema.index({ merchant_id: 1, mode: 1, 'product.id': 1, created_at: 1, _id: 1 });

export type SubscriptionModel = Model<SubscriptionDocument>;

export function subscriptionModel(conn: Connection): SubscriptionModel {
  return conn.model<SubscriptionDocument>('Subscription', subscriptionSchema);
}

const NO_OUTBOX = { outbox: 0 };

function toRecord(doc: SubscriptionDocument): SubscriptionRecord {
  const {
    _id,
    origin_ref: _o,
    next_action_at: _n,
    wake_at: _w,
    lease_owner: _lo,
    lease_until: _lu,
    outbox: _out,
    ...rest
  } = doc;
  const period = (p: { index: number; start: unknown; end: unknown } | null) =>
    p ? { index: p.index, start: new Date(p.start as string), end: new Date(p.end as string) } : null;
  return {
    id: _id,
    ...rest,
    current_period: period(rest.current_period),
    pending_period: period(rest.pending_period),
  };
}

/** The stored form of a record: the record plus the scheduling fields derived from it. */
function schedule(rec: SubscriptionRecord) {
  const at = nextActionAt(rec);
  return {
    next_action_at: at,
    wake_at: at ? new Date(at.getTime() - rec.clock_offset_ms) : null,
  };
}

function stateOf(rec: SubscriptionRecord) {
  const { id: _id, version: _v, ...rest } = rec;
  return rest;
}

export class MongoSubscriptionRepository
  extends ScheduledDocuments<SubscriptionDocument, SubscriptionRecord>
  implements SubscriptionRepository
{
  protected toRecord(doc: SubscriptionDocument): SubscriptionRecord {
    return toRecord(doc);
  }

  protected stored(rec: SubscriptionRecord) {
    return { ...stateOf(rec), ...schedule(rec) };
  }

  async insertOrGetBySession(rec: SubscriptionRecord, events: OutboxEntry[]) {
    const origin_ref = rec.checkout_session_id ? `session:${rec.checkout_session_id}` : `id:${rec.id}`;
    try {
      await this.model.create({
        _id: rec.id,
        ...stateOf(rec),
        version: rec.version,
        origin_ref,
        ...schedule(rec),
        lease_owner: null,
        lease_until: EPOCH,
        outbox: events,
      });
      if (events.length) this.afterWrite(rec.id);
      return { subscription: rec, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err) || !rec.checkout_session_id) throw err;
    }
    const doc = (await this.model.findOne({ origin_ref }, NO_OUTBOX).lean().exec()) as SubscriptionDocument | null;
    if (!doc) throw new Error(`subscription of session ${rec.checkout_session_id} vanished`);
    return { subscription: toRecord(doc), created: false };
  }

  async findBySession(merchantId: number, mode: Mode, sessionId: string) {
    const doc = (await this.model
      .findOne({ origin_ref: `session:${sessionId}`, merchant_id: merchantId, mode }, NO_OUTBOX)
      .lean()
      .exec()) as SubscriptionDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async list(merchantId: number, mode: Mode, query: ListQuery, sort: SortSpec) {
    const filter: Record<string, unknown> = { merchant_id: merchantId, mode };
    if (query.status) filter.status = query.status;
    if (query.product_id !== undefined) filter['product.id'] = query.product_id;
    const order: Record<string, 1 | -1> = {};
    for (const [field, dir] of sort) order[field === 'id' ? '_id' : field] = dir;
    // Equality on scalar fields (the schema above holds no arrays there) and a sort on indexed fields: the
    // local FerretDB runs both in SQL over the indexes above when asked by this comment (FerretDB patch 6,
    // scripts/ferretdb/patches/); MongoDB ignores it. `count` rather than countDocuments (an aggregation, which FerretDB runs
    // in Go over every document).
    const [docs, counted] = await Promise.all([
      this.model
        .find(filter, NO_OUTBOX)
        .sort(order)
        .skip(query.offset)
        .limit(query.limit)
        .comment(FERRETDB_SQL_PUSHDOWN)
        .lean()
        .exec(),
      this.model.db.db!.command({
        count: this.model.collection.collectionName,
        query: filter,
        comment: FERRETDB_SQL_PUSHDOWN,
      }),
    ]);
    return { items: (docs as SubscriptionDocument[]).map(toRecord), total: Number(counted.n) };
  }
}
