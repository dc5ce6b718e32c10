import { Schema, type Connection, type Model } from 'mongoose';
import type { Mode, OutboxEntry } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN, isDuplicateKeyError, moneySchema } from '@ppay/runtime';
import {
  EPOCH,
  SCHEDULED_DOCUMENT_FIELDS,
  ScheduledDocuments,
  type ScheduledFields,
} from '../renewals/leased-documents.repo';
import { nextActionAt, type InstallmentPart, type InstallmentPlanRecord } from './installment-plan';
import { sortKey, type PlanListQuery } from './list-query';
import type { InstallmentPlanRepository } from './ports';

interface PlanDocument extends Omit<InstallmentPlanRecord, 'id'>, ScheduledFields {
  /** The plan id payments chose for the checkout: one plan per paid checkout, by construction. */
  _id: string;
  /** `<created_at ISO>|<id>`: the list's order, cursor and time range (list-query.ts). */
  sort_key: string;
  /** customer.email as a top-level scalar, for the list filter's index. */
  customer_email: string;
}

const Mixed = Schema.Types.Mixed;

const planSchema = new Schema<PlanDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    status: { type: String, required: true },
    product: { type: Mixed, required: true },
    customer: { type: Mixed, required: true },
    customer_email: { type: String, required: true },
    total: { type: moneySchema, required: true },
    count: { type: Number, required: true },
    interval: { type: String, required: true },
    // At most 12 parts; nothing filters on them.
    parts: { type: Mixed, required: true },
    charging: { type: Mixed, default: null },
    payment_method_id: { type: String, required: true },
    card: { type: Mixed, required: true },
    checkout_session_id: { type: String, required: true },
    metadata: { type: Mixed, default: {} },
    completed_at: { type: Date, default: null },
    cancelled_at: { type: Date, default: null },
    defaulted_at: { type: Date, default: null },
    default_reason: { type: String, default: null },
    clock_offset_ms: { type: Number, default: 0 },
    version: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    sort_key: { type: String, required: true },
    ...SCHEDULED_DOCUMENT_FIELDS,
  },
  { versionKey: false, collection: 'installment_plans', minimize: false },
);
// The scheduler's claim: due (in real time) and not leased.
planSchema.index({ wake_at: 1, lease_until: 1 });
// GET /installment-plans: one range of sort_key within (merchant, mode), optionally one status or e-mail.
planSchema.index({ merchant_id: 1, mode: 1, sort_key: 1 });
planSchema.index({ merchant_id: 1, mode: 1, status: 1, sort_key: 1 });
planSchema.index({ merchant_id: 1, mode: 1, customer_email: 1, sort_key: 1 });

export type InstallmentPlanModel = Model<PlanDocument>;

export function installmentPlanModel(conn: Connection): InstallmentPlanModel {
  return conn.model<PlanDocument>('InstallmentPlan', planSchema);
}

const NO_OUTBOX = { outbox: 0 };
const asDate = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

function toRecord(doc: PlanDocument): InstallmentPlanRecord {
  const {
    _id,
    sort_key: _s,
    customer_email: _e,
    next_action_at: _n,
    wake_at: _w,
    lease_owner: _lo,
    lease_until: _lu,
    outbox: _out,
    outbox_pending_since: _pending,
    ...rest
  } = doc as PlanDocument & { outbox_pending_since?: Date | null };
  return {
    id: _id,
    ...rest,
    parts: (rest.parts as InstallmentPart[]).map((p) => ({
      ...p,
      due_at: new Date(p.due_at),
      paid_at: asDate(p.paid_at),
      first_failure_at: asDate(p.first_failure_at),
      next_retry_at: asDate(p.next_retry_at),
    })),
  };
}

/** The stored form of a record's state: the record plus what is derived from it for the queries. */
function stored(rec: InstallmentPlanRecord) {
  const { id: _id, version: _v, ...state } = rec;
  const at = nextActionAt(rec);
  return {
    ...state,
    customer_email: rec.customer.email,
    next_action_at: at,
    wake_at: at ? new Date(at.getTime() - rec.clock_offset_ms) : null,
  };
}

export class MongoInstallmentPlanRepository
  extends ScheduledDocuments<PlanDocument, InstallmentPlanRecord>
  implements InstallmentPlanRepository
{
  protected toRecord(doc: PlanDocument): InstallmentPlanRecord {
    return toRecord(doc);
  }

  protected stored(rec: InstallmentPlanRecord) {
    return stored(rec);
  }

  async insertOrGet(rec: InstallmentPlanRecord, events: OutboxEntry[]) {
    try {
      await this.model.create({
        _id: rec.id,
        ...stored(rec),
        version: rec.version,
        sort_key: sortKey(rec.created_at, rec.id),
        lease_owner: null,
        lease_until: EPOCH,
        outbox: events,
      });
      if (events.length) this.afterWrite(rec.id);
      return { plan: rec, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    const existing = await this.findById(rec.id);
    if (!existing) throw new Error(`installment plan ${rec.id} vanished`);
    return { plan: existing, created: false };
  }

  async list(merchantId: number, mode: Mode, query: PlanListQuery) {
    const filter: Record<string, unknown> = { merchant_id: merchantId, mode };
    if (query.status) filter.status = query.status;
    if (query.customer_email) filter.customer_email = query.customer_email;
    const range: Record<string, string> = {};
    if (query.from_key !== undefined) range.$gte = query.from_key;
    if (query.before_key !== undefined) range.$lt = query.before_key;
    if (Object.keys(range).length) filter.sort_key = range;
    // Equality on scalar fields and one range, sorted on the index's last field: the local FerretDB runs
    // it in SQL over the indexes above (its patch 6); MongoDB ignores the comment.
    const docs = (await this.model
      .find(filter, NO_OUTBOX)
      .sort({ sort_key: -1 })
      .limit(query.limit + 1)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec()) as PlanDocument[];
    return { items: docs.slice(0, query.limit).map(toRecord), has_more: docs.length > query.limit };
  }
}
