import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKeyError, outboxEntrySchema, PlatformError, type Mode, type OutboxEntry } from '@ppay/kernel';
import type { ChargeRecord, ChargeRepository } from '../domain/charges';
import type { GatewayAuthorization } from '../domain/ports';
import type { OutcomeRepository } from '../domain/outcomes';

interface ChargeDocument extends Omit<ChargeRecord, 'id'> {
  _id: string;
  /**
   * Uniqueness key per merchant and mode: the partner's reference, or the charge id when there is
   * none (a unique index treats every missing field as null on MongoDB, so it cannot stay absent).
   */
  reference_key: string;
  outbox: OutboxEntry[];
}

const chargeSchema = new Schema<ChargeDocument>(
  {
    _id: { type: String, required: true },
    transaction_id: { type: String, required: true, unique: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    reference: { type: String, default: null },
    reference_key: { type: String, required: true },
    status: { type: String, required: true },
    gateway_group: { type: String, required: true },
    payment_gateway: { type: String, required: true },
    amount: { type: Number, required: true },
    currency: { type: String, required: true },
    total_amount: { type: Number, required: true },
    total_currency: { type: String, required: true },
    conversion: { type: Schema.Types.Mixed, default: null },
    fee: { type: Schema.Types.Mixed, required: true },
    customer: { type: Schema.Types.Mixed, required: true },
    metadata: { type: Schema.Types.Mixed, default: {} },
    description: { type: String, default: '' },
    callback_url: { type: String, default: '' },
    sub_merchant_id: { type: Number, default: null },
    split: { type: Schema.Types.Mixed, default: null },
    gateway: { type: Schema.Types.Mixed, default: null },
    failure_reason: { type: String, default: null },
    completed_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'charges', minimize: false },
);
chargeSchema.index({ merchant_id: 1, mode: 1, reference_key: 1 }, { unique: true });

export type ChargeModel = Model<ChargeDocument>;

export function chargeModel(conn: Connection): ChargeModel {
  return conn.model<ChargeDocument>('Charge', chargeSchema);
}

function toRecord(doc: ChargeDocument): ChargeRecord {
  const { _id, reference_key: _key, outbox: _outbox, ...rest } = doc;
  return { id: _id, ...rest };
}

/** How long a duplicate request waits for the first one to finish initialising (ms). */
const INITIALISING_WAIT_MS = 5_000;

export class MongoChargeRepository implements ChargeRepository, OutcomeRepository {
  /** `afterWrite` is told which charge gained outbox events (the relay's fast path). */
  constructor(
    readonly model: ChargeModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async findForMerchant(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOne({ _id: chargeId, merchant_id: merchantId, mode }, { outbox: 0 })
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async complete(
    chargeId: string,
    status: 'succeeded' | 'failed',
    failureReason: string | null,
    completedAt: Date,
    event: OutboxEntry,
  ): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: chargeId, status: 'pending' },
        {
          $set: { status, failure_reason: failureReason, completed_at: completedAt, updated_at: completedAt },
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

  async insertOrGetByReference(charge: ChargeRecord): Promise<{ charge: ChargeRecord; created: boolean }> {
    const { id, ...rest } = charge;
    try {
      await this.model.create({ _id: id, ...rest, reference_key: charge.reference ?? `id:${id}`, outbox: [] });
      return { charge, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err) || !charge.reference) throw err;
    }
    // Lost the race for this reference: answer with the charge that won, once it is initialised.
    const deadline = Date.now() + INITIALISING_WAIT_MS;
    for (;;) {
      const existing = await this.findByReference(charge.merchant_id, charge.mode, charge.reference);
      if (existing && (existing.status !== 'initializing' || Date.now() > deadline))
        return { charge: existing, created: false };
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async findByReference(merchantId: number, mode: Mode, reference: string): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOne({ merchant_id: merchantId, mode, reference_key: reference }, { outbox: 0 })
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async markInitialised(id: string, gateway: GatewayAuthorization): Promise<ChargeRecord> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: id, status: 'initializing' },
        { $set: { status: 'pending', gateway, updated_at: new Date() } },
        { new: true },
      )
      .lean()
      .exec()) as ChargeDocument | null;
    if (!doc) throw new PlatformError('CONFLICT', undefined, { detail: `charge ${id} changed while initialising` });
    return toRecord(doc);
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.model
      .updateOne(
        { _id: id, status: 'initializing' },
        { $set: { status: 'failed', failure_reason: reason, updated_at: new Date() } },
      )
      .exec();
  }
}
