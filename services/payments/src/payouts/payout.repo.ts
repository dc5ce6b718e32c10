import { Schema, type Connection, type Model } from 'mongoose';
import { type Mode, type OutboxEntry } from '@ppay/kernel';
import { isDuplicateKeyError, moneySchema, nextSequence, outboxEntrySchema } from '@ppay/runtime';
import { payoutKeyOf, type PayoutRecord } from './payout';
import type { PayoutExpectation, PayoutRepository } from './ports';

interface PayoutDocument extends Omit<PayoutRecord, 'payout_key'> {
  _id: string;
  /** settlement.* events of this request, until the relay has published them. */
  outbox: OutboxEntry[];
}

const payoutSchema = new Schema<PayoutDocument>(
  {
    _id: { type: String, required: true },
    payout_request_id: { type: Number, required: true, unique: true },
    withdrawal_id: { type: Number, default: null },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    marketplace_id: { type: Number, required: true },
    reference: { type: String, required: true },
    amount: { type: moneySchema, required: true },
    payment_gateway: { type: String, required: true },
    payout_method: { type: String, required: true },
    destination: { type: Schema.Types.Mixed, default: null },
    request_status: { type: String, required: true },
    withdrawal_status: { type: String, default: null },
    reservation: { type: String, required: true },
    approved_at: { type: Date, default: null },
    rejected_at: { type: Date, default: null },
    rejection_reason: { type: String, default: null },
    paid_at: { type: Date, default: null },
    failed_at: { type: Date, default: null },
    failure_reason: { type: String, default: null },
    transfer_state: { type: String, default: null },
    transfer: { type: Schema.Types.Mixed, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'payouts' },
);
// The payout sweep: unfinished wallet steps, by one field.
payoutSchema.index({ reservation: 1 });
// The transfer sweep: connected-account transfers begun and not answered (C25), by one field.
payoutSchema.index({ transfer_state: 1 });

export type PayoutModel = Model<PayoutDocument>;

export function payoutModel(conn: Connection): PayoutModel {
  return conn.model<PayoutDocument>('Payout', payoutSchema);
}

function toRecord(doc: PayoutDocument): PayoutRecord {
  const { _id, outbox: _o, ...rest } = doc as PayoutDocument & { outbox_pending_since?: unknown };
  delete (rest as { outbox_pending_since?: unknown }).outbox_pending_since;
  // Requests stored before destinations were recorded have none.
  return {
    payout_key: _id,
    ...rest,
    destination: rest.destination ?? null,
    transfer_state: rest.transfer_state ?? null,
    transfer: rest.transfer ?? null,
  };
}

const NO_OUTBOX = { outbox: 0 };

export class MongoPayoutRepository implements PayoutRepository {
  /** `afterWrite` is told which payout gained an outbox event (the relay's fast path). */
  constructor(
    readonly model: PayoutModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  nextId(): Promise<number> {
    return nextSequence(this.model.db, 'payout_request');
  }

  async insert(payout: PayoutRecord): Promise<boolean> {
    const { payout_key, ...rest } = payout;
    try {
      await this.model.create({ _id: payout_key, ...rest, outbox: [] });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async get(merchantId: number, mode: Mode, reference: string): Promise<PayoutRecord | null> {
    const doc = await this.model
      .findById(payoutKeyOf(merchantId, mode, reference), NO_OUTBOX)
      .lean()
      .exec();
    return doc ? toRecord(doc as PayoutDocument) : null;
  }

  async transition(
    key: string,
    expect: PayoutExpectation,
    set: Partial<PayoutRecord>,
    events: OutboxEntry[],
  ): Promise<PayoutRecord | null> {
    if (events.length > 1) throw new RangeError('one event per payout transition');
    const update: Record<string, unknown> = { $set: set };
    if (events.length) update.$push = { outbox: events[0] };
    const doc = await this.model
      .findOneAndUpdate({ _id: key, ...expect }, update, { new: true })
      .lean()
      .exec();
    if (!doc) return null;
    if (events.length) this.afterWrite(key);
    return toRecord(doc as PayoutDocument);
  }

  async discardUnreserved(key: string): Promise<boolean> {
    const res = await this.model.deleteOne({ _id: key, reservation: 'pending' }).exec();
    return res.deletedCount === 1;
  }

  async unfinished(limit: number): Promise<PayoutRecord[]> {
    const docs = await this.model
      .find({ reservation: { $in: ['pending', 'releasing', 'settling', 'returning'] } }, NO_OUTBOX)
      .limit(limit)
      .lean()
      .exec();
    return (docs as PayoutDocument[]).map(toRecord);
  }

  async transfersBegun(limit: number): Promise<PayoutRecord[]> {
    const docs = await this.model
      .find({ transfer_state: 'begun' }, NO_OUTBOX)
      .sort({ updated_at: 1 })
      .limit(limit)
      .lean()
      .exec();
    return (docs as PayoutDocument[]).map(toRecord);
  }
}
