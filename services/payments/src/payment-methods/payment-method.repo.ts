import { Schema, type Connection, type Model } from 'mongoose';
import { type Mode } from '@ppay/kernel';
import { isDuplicateKeyError } from '@ppay/runtime';
import type { PaymentMethodRecord } from './payment-method';
import type { PaymentMethodRepository } from './ports';

interface PaymentMethodDocument extends Omit<PaymentMethodRecord, 'payment_method_id'> {
  _id: string;
  /** The origin session, or `id:<_id>` for the sandbox helper: unique, so a session saves one method. */
  origin_ref: string;
}

const paymentMethodSchema = new Schema<PaymentMethodDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    customer_email: { type: String, required: true },
    card: { type: Schema.Types.Mixed, required: true },
    origin_session_id: { type: String, default: null },
    origin_ref: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'payment_methods', minimize: false },
);
paymentMethodSchema.index({ origin_ref: 1 }, { unique: true });

export type PaymentMethodModel = Model<PaymentMethodDocument>;

export function paymentMethodModel(conn: Connection): PaymentMethodModel {
  return conn.model<PaymentMethodDocument>('PaymentMethod', paymentMethodSchema);
}

function toRecord(doc: PaymentMethodDocument): PaymentMethodRecord {
  const { _id, origin_ref: _ref, ...rest } = doc;
  return { payment_method_id: _id, ...rest };
}

export class MongoPaymentMethodRepository implements PaymentMethodRepository {
  constructor(readonly model: PaymentMethodModel) {}

  async insertOrGetBySession(method: PaymentMethodRecord): Promise<PaymentMethodRecord> {
    try {
      await this.insert(method);
      return method;
    } catch (err) {
      if (!isDuplicateKeyError(err) || !method.origin_session_id) throw err;
    }
    const doc = (await this.model
      .findOne({ origin_ref: `session:${method.origin_session_id}` })
      .lean()
      .exec()) as PaymentMethodDocument | null;
    if (!doc) throw new Error(`payment method of session ${method.origin_session_id} vanished`);
    return toRecord(doc);
  }

  async insert(method: PaymentMethodRecord): Promise<void> {
    const { payment_method_id: id, ...rest } = method;
    const origin_ref = method.origin_session_id ? `session:${method.origin_session_id}` : `id:${id}`;
    await this.model.create({ _id: id, ...rest, origin_ref });
  }

  async findForMerchant(merchantId: number, mode: Mode, id: string): Promise<PaymentMethodRecord | null> {
    const doc = (await this.model
      .findOne({ _id: id, merchant_id: merchantId, mode })
      .lean()
      .exec()) as PaymentMethodDocument | null;
    return doc ? toRecord(doc) : null;
  }
}
