import { Schema, type Connection, type Model } from 'mongoose';
import {
  isDuplicateKeyError,
  moneySchema,
  outboxEntrySchema,
  PlatformError,
  type Mode,
  type OutboxEntry,
} from '@ppay/kernel';
import type { ChargeRecord } from '../domain/charge';
import type { ChargeRepository, ProcessorAuthorization } from '../domain/ports';

interface ChargeDocument extends Omit<ChargeRecord, 'charge_id'> {
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
  return { charge_id: _id, ...rest };
}

export class MongoChargeRepository implements ChargeRepository {
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
    const { charge_id, ...rest } = charge;
    try {
      await this.model.create({
        _id: charge_id,
        ...rest,
        reference_key: charge.reference ?? `id:${charge_id}`,
        outbox: [],
      });
      return { charge, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err) || !charge.reference) throw err;
    }
    // Lost the race for this reference: answer with the charge that won (the domain waits for it).
    const existing = await this.findByReference(charge.merchant_id, charge.mode, charge.reference);
    if (!existing) throw new Error(`charge reference ${charge.reference} vanished after a duplicate-key error`);
    return { charge: existing, created: false };
  }

  async findByReference(merchantId: number, mode: Mode, reference: string): Promise<ChargeRecord | null> {
    const doc = (await this.model
      .findOne({ merchant_id: merchantId, mode, reference_key: reference }, { outbox: 0 })
      .lean()
      .exec()) as ChargeDocument | null;
    return doc ? toRecord(doc) : null;
  }

  async markInitialised(id: string, authorization: ProcessorAuthorization): Promise<ChargeRecord> {
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: id, status: 'initializing' },
        {
          $set: {
            status: 'pending',
            processor_reference: authorization.processor_reference,
            client_secret: authorization.client_secret ?? null,
            publishable_key: authorization.publishable_key ?? null,
            gateway_account_id: authorization.gateway_account_id ?? null,
            updated_at: new Date(),
          },
        },
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
