import { Schema, type Connection, type Model } from 'mongoose';
import { type Mode, type OutboxEntry } from '@ppay/kernel';
import {
  FERRETDB_SQL_PUSHDOWN,
  insertBuilt,
  isDuplicateKeyError,
  moneySchema,
  outboxEntrySchema,
  updateEachMatching,
} from '@ppay/runtime';
import { initialisedFields, RETRYABLE_FAILURES, type ChargeRecord } from './charge';
import { chargeOf, storedCharge, storedRefund, type StoredCharge, type StoredRefund } from './stored-charge';
import type { ChargeKeys, ChargeListQuery, ChargeRepository, DisputeHoldChange, RefundsChange } from '../ports';
import { chargeListKey } from './charge-queries';
import { listCharges } from './charge-lists.repo';
import type { ProcessorAuthorization } from '../processors/ports';
import { dueForLedgerCheck, markLedgerChecked } from '../wallets/ledger-check.repo';

/** The record in its stored shape (stored-charge.ts), plus what only the repository keeps. */
export interface ChargeDocument extends Omit<StoredCharge, 'charge_id'> {
  _id: string;
  /** When the ledger reconciler confirmed the charge's wallet credits (null until then). */
  ledger_checked_at?: Date | null;
  /**
   * Uniqueness keys per merchant and mode: the partner's reference and Idempotency-Key, or the charge
   * id when there is none (a unique index treats every missing field as null on MongoDB, so neither
   * can stay absent). A released reference becomes `released:<charge id>`.
   */
  reference_key: string;
  idempotency_ref: string;
  /** The oldest `updated_at` of a pending refund (null when none is pending): the refund sweep's index. */
  refund_pending_since?: Date | null;
  /** Position in the merchant's list, newest first (`created_at|id`, list-pages.ts). */
  list_key?: string | null;
  /**
   * Live charges: when their processor was last asked about the payment (created_at until first
   * asked); null once final or no longer watched. The reconciler of missed events' index
   * (live-charge-lookups.repo.ts).
   */
  live_lookup_at?: Date | null;
  outbox: OutboxEntry[];
}

const refundSchema = new Schema<StoredRefund>(
  {
    refund_id: { type: String, required: true },
    idempotency_key: { type: String, default: null },
    request_fingerprint: { type: String, required: true },
    amount: { type: moneySchema, required: true },
    reason: { type: String, default: null },
    status: { type: String, required: true },
    failure_reason: { type: String, default: null },
    refunded_before: { type: Number, default: null },
    processor_reference: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { _id: false },
);

const chargeSchema = new Schema<ChargeDocument>(
  {
    _id: { type: String, required: true },
    transaction_id: { type: String, required: true, unique: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    reference: { type: String, default: null },
    reference_key: { type: String, required: true },
    idempotency_key: { type: String, default: null },
    idempotency_ref: { type: String, required: true },
    request_fingerprint: { type: String, required: true },
    attempts: { type: Number, default: 1 },
    status: { type: String, required: true },
    processor_group: { type: String, required: true },
    payment_gateway: { type: String, required: true },
    amount: { type: moneySchema, required: true },
    total: { type: moneySchema, required: true },
    conversion: { type: Schema.Types.Mixed, default: null },
    fee_details: { type: Schema.Types.Mixed, required: true },
    customer: { type: Schema.Types.Mixed, required: true },
    metadata: { type: Schema.Types.Mixed, default: {} },
    description: { type: String, default: '' },
    callback_url: { type: String, default: '' },
    sub_merchant_id: { type: Number, default: null },
    split: { type: Schema.Types.Mixed, default: null },
    processor_reference: { type: String, default: null },
    client_secret: { type: String, default: null },
    publishable_key: { type: String, default: null },
    gateway_account_id: { type: String, default: null },
    failure_reason: { type: String, default: null },
    completed_at: { type: Date, default: null },
    refunds: { type: [refundSchema], default: [] },
    amount_refunded: { type: Number, default: 0 },
    refunded: { type: Boolean, default: false },
    refund_version: { type: Number, default: 0 },
    amount_disputed: { type: moneySchema, default: null },
    dispute: { type: Schema.Types.Mixed, default: null },
    refund_pending_since: { type: Date, default: null },
    list_key: { type: String, default: null },
    live_lookup_at: { type: Date, default: null },
    ledger_checked_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'charges', minimize: false },
);
chargeSchema.index({ merchant_id: 1, mode: 1, reference_key: 1 }, { unique: true });
chargeSchema.index({ merchant_id: 1, mode: 1, idempotency_ref: 1 }, { unique: true });
// The stale-initialisation sweep, and the ledger reconciler.
chargeSchema.index({ status: 1, updated_at: 1 });
chargeSchema.index({ status: 1, ledger_checked_at: 1, completed_at: 1 });
// The sweep of refunds left pending.
chargeSchema.index({ refund_pending_since: 1 });
// The reconciler of live charges whose processor event may have been missed: null for every other charge.
chargeSchema.index({ live_lookup_at: 1 });
// GET /payments/charges: one range of a merchant's list keys, with or without a status or reference.
chargeSchema.index({ merchant_id: 1, mode: 1, list_key: -1 });
chargeSchema.index({ merchant_id: 1, mode: 1, status: 1, list_key: -1 });
chargeSchema.index({ merchant_id: 1, mode: 1, reference_key: 1, list_key: -1 });
// findByKeys by Idempotency-Key. MongoDB answers it from the unique index above as well; FerretDB runs
// SQL equality only over non-unique indexes (patch 6), and without this index would read every charge
// of the table. The reference's lookup uses the listing index above.
chargeSchema.index({ merchant_id: 1, mode: 1, idempotency_ref: 1, created_at: -1 });
// A processor's dispute names only its payment: the live charge by processor_reference, an equality
// on two scalars (no unique index: a charge has no reference until its processor answers).
chargeSchema.index({ processor_reference: 1, mode: 1 });

export type ChargeModel = Model<ChargeDocument>;

export function chargeModel(conn: Connection): ChargeModel {
  return conn.model<ChargeDocument>('Charge', chargeSchema);
}

/** The stored form of a new charge: every schema path set (see insertBuilt). */
export function chargeDocumentOf(charge: ChargeRecord): Record<string, unknown> {
  const { charge_id, ...rest } = storedCharge(charge);
  return {
    _id: charge_id,
    ...rest,
    reference_key: charge.reference ?? `id:${charge_id}`,
    idempotency_ref: charge.idempotency_key ?? `id:${charge_id}`,
    refund_pending_since: null,
    list_key: chargeListKey(charge),
    live_lookup_at: charge.mode === 'live' ? charge.created_at : null,
    ledger_checked_at: null,
    outbox: [],
    outbox_pending_since: null,
  };
}

export function toRecord(doc: ChargeDocument): ChargeRecord {
  const {
    _id,
    reference_key: _ref,
    idempotency_ref: _key,
    outbox: _outbox,
    ledger_checked_at: _checked,
    outbox_pending_since: _pending,
    refund_pending_since: _refundPending,
    list_key: _listKey,
    live_lookup_at: _lookUp,
    ...rest
  } = doc as ChargeDocument & { outbox_pending_since?: Date | null };
  // Charges stored before refunds existed have none of the refund fields.
  return chargeOf({
    charge_id: _id,
    ...rest,
    attempts: rest.attempts ?? 1,
    refunded: rest.refunded ?? false,
    refund_version: rest.refund_version ?? 0,
  });
}

const NO_OUTBOX = { outbox: 0 };

/** The refund cap's version; 0 also matches a charge stored before refunds existed (no such field). */
function atRefundVersion(expected: number) {
  return expected === 0
    ? { $or: [{ refund_version: 0 }, { refund_version: { $exists: false } }] }
    : { refund_version: expected };
}

export class MongoChargeRepository implements ChargeRepository {
  /** `afterWrite` is told which charge gained outbox events (the relay's fast path). */
  constructor(
    readonly model: ChargeModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  /**
   * The hot path of every charge, one write: the record is complete, so no mongoose document is built.
   * The unique indexes on reference and Idempotency-Key claim them; false when another charge holds one.
   */
  async insert(charge: ChargeRecord): Promise<boolean> {
    try {
      await insertBuilt(this.model, chargeDocumentOf(charge));
      return true;
    } catch (err) {
      if (!isDuplicateKeyError(err) || (!charge.reference && !charge.idempotency_key)) throw err;
      return false;
    }
  }

  /**
   * The charge holding the Idempotency-Key (it binds more strongly), else the one holding the reference:
   * equality on the unique indexes' fields, which both MongoDB and (through the index below, in SQL)
   * FerretDB answer from an index.
   */
  async findByKeys(merchantId: number, mode: Mode, keys: ChargeKeys): Promise<ChargeRecord | null> {
    const wanted = [
      ...(keys.idempotencyKey ? [{ idempotency_ref: keys.idempotencyKey }] : []),
      ...(keys.reference ? [{ reference_key: keys.reference }] : []),
    ];
    for (const key of wanted) {
      const doc = (await this.model
        .findOne({ merchant_id: merchantId, mode, ...key }, NO_OUTBOX)
        .comment(FERRETDB_SQL_PUSHDOWN)
        .lean()
        .exec()) as ChargeDocument | null;
      if (doc) return toRecord(doc);
    }
    return null;
  }

  async findForMerchant(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOne({ _id: chargeId, merchant_id: merchantId, mode }, NO_OUTBOX)
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async findLiveByProcessorReference(reference: string): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOne({ processor_reference: reference, mode: 'live' }, NO_OUTBOX)
      .comment(FERRETDB_SQL_PUSHDOWN) // equality on its own index's fields
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async listForMerchant(merchantId: number, mode: Mode, q: ChargeListQuery): Promise<ChargeRecord[]> {
    return (await listCharges<ChargeDocument>(this.model, merchantId, mode, q)).map(toRecord);
  }

  async retryInitialisation(chargeId: string, staleBefore: Date, now: Date): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        {
          _id: chargeId,
          $or: [
            { status: 'failed', failure_reason: { $in: [...RETRYABLE_FAILURES] } },
            { status: 'initializing', updated_at: { $lte: staleBefore } },
          ],
        },
        { $set: { status: 'initializing', failure_reason: null, updated_at: now }, $inc: { attempts: 1 } },
        { new: true },
      )
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async reclaimPending(chargeId: string, staleBefore: Date, now: Date): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: chargeId, status: 'pending', updated_at: { $lte: staleBefore } },
        { $set: { updated_at: now }, $inc: { attempts: 1 } },
        { new: true },
      )
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async releaseReference(chargeId: string, reference: string): Promise<boolean> {
    const res = await this.model
      .updateOne(
        { _id: chargeId, status: 'failed', reference_key: reference },
        { $set: { reference_key: `released:${chargeId}`, updated_at: new Date() } },
      )
      .exec();
    return res.modifiedCount > 0;
  }

  async markInitialised(id: string, authorization: ProcessorAuthorization): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: id, status: 'initializing' },
        { $set: initialisedFields(authorization, new Date()) },
        { new: true },
      )
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.model
      .updateOne(
        { _id: id, status: 'initializing' },
        { $set: { status: 'failed', failure_reason: reason, updated_at: new Date() } },
      )
      .exec();
  }

  async abandonStale(staleBefore: Date, now: Date): Promise<number> {
    return updateEachMatching(
      this.model,
      { status: 'initializing', updated_at: { $lte: staleBefore } },
      { $set: { status: 'failed', failure_reason: 'abandoned', updated_at: now } },
      // Every 5 s: a range scan of {status, updated_at} in SQL, not a read of every charge.
      { sqlPushdown: true },
    );
  }

  async dueForLedgerCheck(before: Date, limit: number): Promise<ChargeRecord[]> {
    return (await dueForLedgerCheck(this.model, 'succeeded', before, limit)).map(toRecord);
  }

  markLedgerChecked(chargeId: string, at: Date): Promise<void> {
    return markLedgerChecked(this.model, chargeId, at);
  }

  async writeRefunds(
    chargeId: string,
    expectedVersion: number,
    change: RefundsChange,
    event: OutboxEntry | null,
    now: Date,
  ): Promise<ChargeRecord | null> {
    const pending = change.refunds.filter((r) => r.status === 'pending').map((r) => r.updated_at.getTime());
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: chargeId, ...atRefundVersion(expectedVersion) },
        {
          $set: {
            refunds: change.refunds.map(storedRefund),
            amount_refunded: change.amount_refunded.amount,
            refunded: change.refunded,
            refund_version: expectedVersion + 1,
            refund_pending_since: pending.length ? new Date(Math.min(...pending)) : null,
            updated_at: now,
          },
          ...(event ? { $push: { outbox: event } } : {}),
        },
        { new: true },
      )
      .lean()
      .exec()) as ChargeDocument | null;
    if (!doc) return null;
    if (event) this.afterWrite(chargeId);
    return toRecord(doc);
  }

  async writeDisputeHold(
    chargeId: string,
    expectedVersion: number,
    change: DisputeHoldChange,
    now: Date,
  ): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: chargeId, ...atRefundVersion(expectedVersion) },
        {
          $set: {
            dispute: change.dispute,
            amount_disputed: change.amount_disputed,
            refund_version: expectedVersion + 1,
            updated_at: now,
          },
        },
        { new: true },
      )
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async withStalePendingRefunds(staleBefore: Date, limit: number): Promise<ChargeRecord[]> {
    const docs = (await this.model
      .find({ refund_pending_since: { $lte: staleBefore } }, NO_OUTBOX)
      .sort({ refund_pending_since: 1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN) // every 5 s: a range scan of its index, not a read of every charge
      .lean()
      .exec()) as ChargeDocument[];
    return docs.map(toRecord);
  }

  async complete(
    chargeId: string,
    status: 'succeeded' | 'failed',
    failureReason: string | null,
    completedAt: Date,
    event: OutboxEntry,
    processorReference: string | null = null,
  ): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: chargeId, status: 'pending' },
        {
          $set: {
            status,
            failure_reason: failureReason,
            completed_at: completedAt,
            updated_at: completedAt,
            // Final: the reconciler has nothing more to ask its processor.
            live_lookup_at: null,
            ...(processorReference ? { processor_reference: processorReference } : {}),
          },
          $push: { outbox: event },
        },
        { new: true },
      )
      .lean()
      .exec()) as ChargeDocument | null;
    if (!doc) return null;
    this.afterWrite(chargeId);
    return toRecord(doc);
  }
}
