import { Schema, type Connection, type FilterQuery, type Model } from 'mongoose';
import type { Mode, OutboxEntry } from '@ppay/kernel';
import {
  FERRETDB_SQL_PUSHDOWN,
  isDuplicateKeyError,
  moneySchema,
  outboxEntrySchema,
  withoutRelayFields,
} from '@ppay/runtime';
import { hasEvidence, type DisputeRecord, type DisputeState } from './dispute';
import { listKeyRange } from '../list-pages';
import { disputeListKey } from './disputes';
import type { DisputeListQuery, DisputeRepository } from './ports';

interface DisputeDocument extends Omit<DisputeRecord, 'dispute_id'> {
  _id: string;
  /** Position in the merchant's list, newest first (`created_at|id`); null while opening (never listed). */
  list_key: string | null;
  /** Some evidence is saved (the unanswered-disputes gauge counts those without). */
  has_evidence: boolean;
  /** `scheduled_outcome.at` as a scalar the outcome sweep can range over. */
  scheduled_outcome_at: Date | null;
  outbox: OutboxEntry[];
}

const disputeSchema = new Schema<DisputeDocument>(
  {
    _id: { type: String, required: true },
    charge_id: { type: String, required: true, unique: true },
    merchant_id: { type: Number, required: true },
    sub_merchant_id: { type: Number, default: null },
    mode: { type: String, required: true },
    amount: { type: moneySchema, required: true },
    fee: { type: moneySchema, required: true },
    reason: { type: String, required: true },
    status: { type: String, required: true },
    evidence: { type: Schema.Types.Mixed, required: true },
    evidence_due_by: { type: Date, required: true },
    evidence_submitted_at: { type: Date, default: null },
    funds_withdrawn: { type: Schema.Types.Mixed, default: [] },
    funds_reinstated: { type: Schema.Types.Mixed, default: [] },
    source: { type: String, required: true },
    processor_reference: { type: String, default: null },
    scheduled_outcome: { type: Schema.Types.Mixed, default: null },
    scheduled_outcome_at: { type: Date, default: null },
    version: { type: Number, required: true },
    list_key: { type: String, default: null },
    has_evidence: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    closed_at: { type: Date, default: null },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'disputes', minimize: false },
);
// GET /disputes: a range of one merchant's list keys, with or without a status (docs/adding-a-feature.md).
disputeSchema.index({ merchant_id: 1, mode: 1, list_key: -1 });
disputeSchema.index({ merchant_id: 1, mode: 1, status: 1, list_key: -1 });
// The sweeps: opening disputes left by a crash, unanswered ones past due, scheduled outcomes.
disputeSchema.index({ status: 1, updated_at: 1 });
disputeSchema.index({ status: 1, evidence_due_by: 1 });
disputeSchema.index({ status: 1, scheduled_outcome_at: 1 });

export type DisputeModel = Model<DisputeDocument>;

export function disputeModel(conn: Connection): DisputeModel {
  return conn.model<DisputeDocument>('Dispute', disputeSchema);
}

function documentOf(d: DisputeRecord): Omit<DisputeDocument, 'outbox'> {
  const { dispute_id, ...rest } = d;
  return {
    _id: dispute_id,
    ...rest,
    list_key: d.status === 'opening' ? null : disputeListKey(d),
    has_evidence: hasEvidence(d.evidence),
    scheduled_outcome_at: d.scheduled_outcome?.at ?? null,
  };
}

function toRecord(doc: DisputeDocument): DisputeRecord {
  const {
    _id,
    list_key: _k,
    has_evidence: _e,
    scheduled_outcome_at: _s,
    ...rest
  } = withoutRelayFields(doc as DisputeDocument & { outbox_pending_since?: Date | null });
  // Disputes stored before live disputes existed have no processor_reference.
  return { dispute_id: _id, ...rest, processor_reference: rest.processor_reference ?? null };
}

const NO_OUTBOX = { outbox: 0 };

export class MongoDisputeRepository implements DisputeRepository {
  /** `afterWrite` is told which dispute gained outbox events (the relay's fast path). */
  constructor(
    readonly model: DisputeModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async insertOrGetForCharge(dispute: DisputeRecord) {
    try {
      await this.model.create({ ...documentOf(dispute), outbox: [] });
      return { dispute, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    // The charge has its dispute already (unique charge_id): a lookup by that index alone, once. It may
    // be gone by now (an opening dispute discarded in between): null, the caller decides.
    const doc = (await this.model
      .findOne({ charge_id: dispute.charge_id }, NO_OUTBOX)
      .lean()
      .exec()) as DisputeDocument | null;
    return doc ? { dispute: toRecord(doc), created: false } : null;
  }

  async findById(disputeId: string) {
    const doc = (await this.model.findById(disputeId, NO_OUTBOX).lean().exec()) as DisputeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async findForMerchant(merchantId: number, mode: Mode, disputeId: string) {
    const doc = (await this.model
      .findOne({ _id: disputeId, merchant_id: merchantId, mode }, NO_OUTBOX)
      .lean()
      .exec()) as DisputeDocument | null;
    return doc && doc.status !== 'opening' ? toRecord(doc) : null;
  }

  async replace(
    expected: Pick<DisputeRecord, 'dispute_id' | 'status' | 'version'>,
    next: DisputeRecord,
    events: OutboxEntry[],
  ) {
    const { _id, ...fields } = documentOf({ ...next, version: expected.version + 1 });
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: expected.dispute_id, status: expected.status, version: expected.version },
        { $set: fields, ...(events.length ? { $push: { outbox: { $each: events } } } : {}) },
        { new: true },
      )
      .lean()
      .exec()) as DisputeDocument | null;
    if (!doc) return null;
    if (events.length) this.afterWrite(_id);
    return toRecord(doc);
  }

  async discardOpening(disputeId: string) {
    const res = await this.model.deleteOne({ _id: disputeId, status: 'opening' }).exec();
    return res.deletedCount === 1;
  }

  async list(merchantId: number, mode: Mode, q: DisputeListQuery) {
    // Opening disputes have no list key: the range leaves them out.
    const filter: FilterQuery<DisputeDocument> = { merchant_id: merchantId, mode, list_key: listKeyRange(q) };
    if (q.status) filter.status = q.status;
    if (q.charge_id) filter.charge_id = q.charge_id;
    const docs = (await this.model
      .find(filter, NO_OUTBOX)
      .sort({ list_key: -1 })
      .limit(q.limit)
      .comment(FERRETDB_SQL_PUSHDOWN) // equality and one range on scalar fields, sorted on the index
      .lean()
      .exec()) as DisputeDocument[];
    return docs.map(toRecord);
  }

  async due(
    status: DisputeState,
    field: 'updated_at' | 'evidence_due_by' | 'scheduled_outcome_at',
    until: Date,
    limit: number,
  ) {
    const docs = (await this.model
      .find({ status, [field]: { $lte: until } }, NO_OUTBOX)
      .sort({ [field]: 1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec()) as DisputeDocument[];
    return docs.map(toRecord);
  }

  async countUnansweredDueBefore(until: Date) {
    const res = (await this.model.db.db!.command({
      count: this.model.collection.collectionName,
      query: { status: 'needs_response', has_evidence: false, evidence_due_by: { $lt: until } },
      comment: FERRETDB_SQL_PUSHDOWN,
    })) as { n: number };
    return res.n;
  }
}
