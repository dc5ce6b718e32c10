import { Schema, type Connection, type Model } from 'mongoose';
import { type Mode, type OutboxEntry } from '@ppay/kernel';
import {
  FERRETDB_SQL_PUSHDOWN,
  isDuplicateKeyError,
  moneySchema,
  outboxEntrySchema,
  updateEachMatching,
} from '@ppay/runtime';
import type { FeeBreakdown } from '../charges/fees';
import {
  chargeOf,
  feeDetailsOf,
  storedCharge,
  storedFeeDetails,
  type StoredCharge,
  type StoredFeeDetails,
} from '../charges/stored-charge';
import type { AttemptChange, ProcessorClose, SessionPayment, SessionRecord } from './session';
import type { SessionRepository } from '../ports';
import { dueForLedgerCheck, markLedgerChecked } from '../wallets/ledger-check.repo';

/**
 * Sessions keep the stored shape they had before their fee details and payment became Money: fee
 * details in minor units of the session currency, under the spec's `base_product_price`, and the
 * payment as a stored charge (stored-charge.ts). Mapped here, so stored documents read as they are.
 */
type StoredSessionFees = Omit<StoredFeeDetails, 'base_amount'> & { base_product_price: number };
type StoredPayment = StoredCharge & Pick<SessionPayment, 'card'>;

function storedSessionFees(f: FeeBreakdown): StoredSessionFees {
  const { base_amount, ...rest } = storedFeeDetails(f);
  return { base_product_price: base_amount, ...rest };
}

const storedPayment = (p: SessionPayment): StoredPayment => ({ ...storedCharge(p), card: p.card });

interface SessionDocument extends Omit<SessionRecord, 'session_id' | 'fee_details' | 'payment'> {
  fee_details: StoredSessionFees;
  payment: StoredPayment | null;
  _id: string;
  /** Unique per merchant and mode: the Idempotency-Key, or the session id when there is none. */
  idempotency_ref: string;
  /** When the ledger reconciler confirmed the payment's wallet credits (null until then). */
  ledger_checked_at?: Date | null;
  outbox: OutboxEntry[];
}

const sessionSchema = new Schema<SessionDocument>(
  {
    _id: { type: String, required: true },
    // '' while a live physical session is made before its processor's (live-goods.ts): never absent.
    gateway_session_id: { type: String, default: '' },
    payment_url: { type: String, default: null },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    status: { type: String, required: true },
    amount: { type: moneySchema, required: true },
    processor_group: { type: String, required: true },
    payment_gateway: { type: String, required: true },
    product: { type: Schema.Types.Mixed, required: true },
    customer: { type: Schema.Types.Mixed, required: true },
    success_url: { type: String, default: '' },
    cancel_url: { type: String, default: '' },
    payment_type: { type: String, required: true },
    subscription_frequency_key: { type: String, default: null },
    trial_days: { type: Number, default: null },
    installments: { type: Schema.Types.Mixed, default: null },
    goods: { type: Schema.Types.Mixed, default: null },
    sub_merchant_id: { type: Number, default: null },
    split: { type: Schema.Types.Mixed, default: null },
    shipping_address: { type: Schema.Types.Mixed, default: null },
    stock_state: { type: String, default: null },
    metadata: { type: Schema.Types.Mixed, default: {} },
    fee_details: { type: Schema.Types.Mixed, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
    completed_at: { type: Date, default: null },
    updated_at: { type: Date, required: true },
    payment: { type: Schema.Types.Mixed, default: null },
    attempts: { type: Schema.Types.Mixed, default: [] },
    attempt_count: { type: Number, default: 0 },
    in_flight: { type: Schema.Types.Mixed, default: null },
    idempotency_key: { type: String, default: null },
    idempotency_ref: { type: String, required: true },
    ledger_checked_at: { type: Date, default: null },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'sessions', minimize: false },
);
sessionSchema.index({ merchant_id: 1, mode: 1, idempotency_ref: 1 }, { unique: true });
// The expiry sweeper's query, and the ledger reconciler's.
sessionSchema.index({ status: 1, expires_at: 1 });
sessionSchema.index({ status: 1, ledger_checked_at: 1, completed_at: 1 });
// The stock sweep: holds of paid sessions to keep, and of sessions that can no longer pay to give back.
sessionSchema.index({ stock_state: 1, status: 1 });
// Live physical sessions whose processor never said they ended (heldPastExpiry).
sessionSchema.index({ stock_state: 1, expires_at: 1 });

export type SessionModel = Model<SessionDocument>;

export function sessionModel(conn: Connection): SessionModel {
  return conn.model<SessionDocument>('Session', sessionSchema);
}

const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

function toRecord(doc: SessionDocument): SessionRecord {
  const {
    _id,
    idempotency_ref: _ref,
    outbox: _outbox,
    ledger_checked_at: _checked,
    outbox_pending_since: _pending,
    ...rest
  } = doc as SessionDocument & { outbox_pending_since?: Date | null };
  const { base_product_price, ...fees } = rest.fee_details;
  return {
    session_id: _id,
    ...rest,
    fee_details: feeDetailsOf({ base_amount: base_product_price, ...fees }, rest.amount.currency),
    payment: rest.payment ? { ...chargeOf(rest.payment), card: rest.payment.card } : null,
    in_flight: rest.in_flight ? { ...rest.in_flight, started_at: asDate(rest.in_flight.started_at) } : null,
    payment_url: rest.payment_url ?? null,
    trial_days: rest.trial_days ?? null,
    installments: rest.installments ?? null,
    goods: rest.goods ?? null,
    sub_merchant_id: rest.sub_merchant_id ?? null,
    split: rest.split ?? null,
    shipping_address: rest.shipping_address ?? null,
    stock_state: rest.stock_state ?? null,
    attempts: rest.attempts ?? [],
    attempt_count: rest.attempt_count ?? 0,
  };
}

const NO_OUTBOX = { outbox: 0 };

export class MongoSessionRepository implements SessionRepository {
  /** `afterWrite` is told which session gained outbox events (the relay's fast path). */
  constructor(
    readonly model: SessionModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async insertOrGetByIdempotencyKey(
    session: SessionRecord,
    events: OutboxEntry[] = [],
  ): Promise<{ session: SessionRecord; created: boolean }> {
    const { session_id: id, ...rest } = session;
    try {
      await this.model.create({
        _id: id,
        ...rest,
        fee_details: storedSessionFees(session.fee_details),
        payment: session.payment ? storedPayment(session.payment) : null,
        idempotency_ref: session.idempotency_key ?? `id:${id}`,
        outbox: events,
      });
      if (events.length) this.afterWrite(id);
      return { session, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err) || !session.idempotency_key) throw err;
    }
    const existing = (await this.model
      .findOne(
        { merchant_id: session.merchant_id, mode: session.mode, idempotency_ref: session.idempotency_key },
        NO_OUTBOX,
      )
      .lean()
      .exec()) as SessionDocument | null;
    if (!existing) throw new Error('session idempotency key vanished');
    return { session: toRecord(existing), created: false };
  }

  async findById(id: string): Promise<SessionRecord | null> {
    const doc = (await this.model.findOne({ _id: id }, NO_OUTBOX).lean().exec()) as SessionDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async findForMerchant(id: string, merchantId: number, mode: Mode): Promise<SessionRecord | null> {
    const doc = (await this.model
      .findOne({ _id: id, merchant_id: merchantId, mode }, NO_OUTBOX)
      .lean()
      .exec()) as SessionDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async findByIdempotencyKey(merchantId: number, mode: Mode, key: string): Promise<SessionRecord | null> {
    const doc = (await this.model
      .findOne({ merchant_id: merchantId, mode, idempotency_ref: key }, NO_OUTBOX)
      .lean()
      .exec()) as SessionDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async claimAttempt(id: string, attemptId: string, now: Date, staleBefore: Date): Promise<SessionRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        {
          _id: id,
          status: 'pending',
          expires_at: { $gt: now },
          $or: [{ in_flight: null }, { 'in_flight.started_at': { $lt: staleBefore } }],
        },
        { $set: { in_flight: { attempt_id: attemptId, started_at: now }, updated_at: now } },
        { new: true },
      )
      .lean()
      .exec()) as SessionDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async releaseAttempt(id: string, attemptId: string): Promise<void> {
    await this.model
      .updateOne({ _id: id, 'in_flight.attempt_id': attemptId }, { $set: { in_flight: null, updated_at: new Date() } })
      .exec();
  }

  async finishAttempt(
    id: string,
    attemptId: string,
    change: AttemptChange,
    events: OutboxEntry[],
  ): Promise<SessionRecord | null> {
    const set: Record<string, unknown> = {
      status: change.status,
      completed_at: change.completed_at,
      in_flight: null,
      updated_at: change.now,
    };
    if (change.payment) set.payment = storedPayment(change.payment);
    if (change.shipping_address) set.shipping_address = change.shipping_address;
    if (change.stock_state) set.stock_state = change.stock_state;
    const push: Record<string, unknown> = { outbox: { $each: events } };
    if (change.attempt) push.attempts = change.attempt;
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: id, status: 'pending', 'in_flight.attempt_id': attemptId },
        { $set: set, $push: push, ...(change.attempt ? { $inc: { attempt_count: 1 } } : {}) },
        { new: true },
      )
      .lean()
      .exec()) as SessionDocument | null;
    if (!doc) return null;
    this.afterWrite(id);
    return toRecord(doc);
  }

  async closeFromProcessor(id: string, change: ProcessorClose, events: OutboxEntry[]): Promise<SessionRecord | null> {
    const open = { $in: ['pending', 'expired'] };
    const [filter, set] =
      change.status === 'completed'
        ? [
            {
              _id: id,
              status: open,
              payment: null,
              ...(change.goods ? { stock_state: change.goods.stock_from } : {}),
            },
            {
              status: 'completed',
              completed_at: change.now,
              payment: change.payment ? storedPayment(change.payment) : null,
              in_flight: null,
              updated_at: change.now,
              ...(change.goods ? { shipping_address: change.goods.shipping_address, stock_state: 'commit' } : {}),
            },
          ]
        : change.release_stock
          ? [
              { _id: id, status: open, stock_state: 'held' },
              { status: 'expired', stock_state: 'release', updated_at: change.now },
            ]
          : [
              { _id: id, status: 'pending', in_flight: null },
              { status: 'expired', updated_at: change.now },
            ];
    const doc = (await this.model
      .findOneAndUpdate(filter, { $set: set, $push: { outbox: { $each: events } } }, { new: true })
      .lean()
      .exec()) as SessionDocument | null;
    if (!doc) return null;
    if (events.length) this.afterWrite(id);
    return toRecord(doc);
  }

  async openAtProcessor(
    id: string,
    attemptId: string,
    opened: Pick<SessionRecord, 'gateway_session_id' | 'payment_url' | 'expires_at'>,
    now: Date,
  ): Promise<SessionRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: id, status: 'pending', gateway_session_id: '', 'in_flight.attempt_id': attemptId },
        { $set: { ...opened, stock_state: 'held', in_flight: null, updated_at: now } },
        { new: true }, // no projection: FerretDB's findAndModify has none
      )
      .lean()
      .exec()) as SessionDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async discardUnopened(id: string, attemptId: string): Promise<void> {
    await this.model.deleteOne({ _id: id, gateway_session_id: '', 'in_flight.attempt_id': attemptId }).exec();
  }

  async heldPastExpiry(before: Date, limit: number): Promise<SessionRecord[]> {
    const docs = (await this.model
      .find({ stock_state: 'held', expires_at: { $lt: before } }, NO_OUTBOX)
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN) // equality and a range on the {stock_state, expires_at} index
      .lean()
      .exec()) as SessionDocument[];
    return docs.map(toRecord);
  }

  async dueForLedgerCheck(before: Date, limit: number): Promise<SessionRecord[]> {
    return (await dueForLedgerCheck(this.model, 'completed', before, limit)).map(toRecord);
  }

  markLedgerChecked(sessionId: string, at: Date): Promise<void> {
    return markLedgerChecked(this.model, sessionId, at);
  }

  async withStockToSettle(limit: number): Promise<SessionRecord[]> {
    const found: SessionRecord[] = [];
    for (const filter of [
      { stock_state: 'commit' },
      { stock_state: 'release' },
      { stock_state: 'open', status: 'expired' },
      { stock_state: 'open', status: 'failed' },
    ]) {
      const docs = (await this.model
        .find(filter, NO_OUTBOX)
        .limit(limit)
        .comment(FERRETDB_SQL_PUSHDOWN) // equality on the {stock_state, status} index
        .lean()
        .exec()) as SessionDocument[];
      found.push(...docs.map(toRecord));
    }
    return found;
  }

  async markStockSettled(
    id: string,
    from: 'open' | 'release' | 'commit',
    to: 'settled' | 'open' = 'settled',
  ): Promise<void> {
    await this.model.updateOne({ _id: id, stock_state: from }, { $set: { stock_state: to } }).exec();
  }

  async expire(id: string, now: Date): Promise<void> {
    await this.model
      .updateOne(
        { _id: id, status: 'pending', expires_at: { $lte: now }, in_flight: null },
        { $set: { status: 'expired', updated_at: now } },
      )
      .exec();
  }

  async expireDue(now: Date, staleBefore: Date): Promise<number> {
    return updateEachMatching(
      this.model,
      {
        status: 'pending',
        expires_at: { $lte: now },
        $or: [{ in_flight: null }, { 'in_flight.started_at': { $lt: staleBefore } }],
      },
      { $set: { status: 'expired', in_flight: null, updated_at: now } },
    );
  }
}
