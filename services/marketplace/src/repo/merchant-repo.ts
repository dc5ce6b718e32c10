import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKeyError, nextSequence, outboxEntrySchema, PlatformError, type OutboxEntry } from '@ppay/kernel';
import type { MerchantRecord, MerchantRepository } from '../domain/merchants';

interface MerchantDocument extends Omit<MerchantRecord, 'id'> {
  _id: number;
  outbox: OutboxEntry[];
}

const merchantSchema = new Schema<MerchantDocument>(
  {
    _id: { type: Number, required: true },
    email: { type: String, required: true, unique: true },
    business_name: { type: String, required: true },
    country: { type: String, required: true },
    baseline_currency: { type: String, required: true },
    is_marketplace_operator: { type: Boolean, required: true },
    owner_user_id: { type: String, required: true, index: true },
    marketplace_id: { type: Number, default: null },
    marketplace_commission_rate: { type: String, default: null },
    customer_pays_fees: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'merchants' },
);

/** Merchant ids start at 1000 so they never look like small list indexes in partner logs. */
const FIRST_MERCHANT_ID = 1000;

export type MerchantModel = Model<MerchantDocument>;

export function merchantModel(conn: Connection): MerchantModel {
  return conn.model<MerchantDocument>('Merchant', merchantSchema);
}

export class MongoMerchantRepository implements MerchantRepository {
  /** `afterWrite` is told which document gained outbox events (the relay's fast path). */
  constructor(
    readonly model: MerchantModel,
    private readonly afterWrite: (id: number) => void = () => undefined,
  ) {}

  nextId(): Promise<number> {
    return nextSequence(this.model.db, 'merchant', FIRST_MERCHANT_ID);
  }

  async insert(record: MerchantRecord, event: OutboxEntry): Promise<void> {
    const { id, ...rest } = record;
    try {
      await this.model.create({ _id: id, ...rest, outbox: [event] });
    } catch (err) {
      if (isDuplicateKeyError(err)) {
        throw new PlatformError('ALREADY_EXISTS', 'A merchant with this email already exists', {
          param: 'email',
          cause: err,
        });
      }
      throw err;
    }
    this.afterWrite(id);
  }

  async findById(id: number): Promise<MerchantRecord | null> {
    const doc = (await this.model.findById(id, { outbox: 0 }).lean().exec()) as MerchantDocument | null;
    if (!doc) return null;
    const { _id, outbox: _outbox, ...rest } = doc;
    return { id: _id, ...rest };
  }
}
