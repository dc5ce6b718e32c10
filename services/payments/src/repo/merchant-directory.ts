import { Schema, type Connection, type Model } from 'mongoose';
import { PlatformError, TtlCache } from '@ppay/kernel';
import type { MerchantDirectory, MerchantProfile } from '../domain/ports';

interface MerchantProfileDocument extends Omit<MerchantProfile, 'merchant_id'> {
  _id: number;
  updated_at: Date;
}

const profileSchema = new Schema<MerchantProfileDocument>(
  {
    _id: { type: Number, required: true },
    country: { type: String, required: true },
    baseline_currency: { type: String, required: true },
    customer_pays_fees: { type: Boolean, default: false },
    is_marketplace_operator: { type: Boolean, default: false },
    business_name: { type: String, default: '' },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'merchant_profiles' },
);

export type MerchantProfileModel = Model<MerchantProfileDocument>;

export function merchantProfileModel(conn: Connection): MerchantProfileModel {
  return conn.model<MerchantProfileDocument>('MerchantProfile', profileSchema);
}

/**
 * Payments' own copy of the merchant facts it needs, kept from marketplace's merchants.* events
 * (no synchronous call to marketplace on the charge path). A merchant created a moment ago may not
 * have arrived yet, so a miss waits briefly for the event before answering MERCHANT_NOT_FOUND.
 */
export class ProjectedMerchantDirectory implements MerchantDirectory {
  private readonly cache = new TtlCache<number, MerchantProfile>(10_000);

  constructor(
    readonly model: MerchantProfileModel,
    private readonly waitForEventMs: number,
    private readonly cacheTtlMs = 30_000,
  ) {}

  get(merchantId: number): Promise<MerchantProfile> {
    return this.cache.getOrLoad(
      merchantId,
      () => this.load(merchantId),
      () => this.cacheTtlMs,
    );
  }

  /** Idempotent: applying the same event twice leaves the same document. */
  async upsert(profile: MerchantProfile): Promise<void> {
    const { merchant_id, ...fields } = profile;
    await this.model
      .updateOne({ _id: merchant_id }, { $set: { ...fields, updated_at: new Date() } }, { upsert: true })
      .exec();
    this.cache.delete(merchant_id);
  }

  private async load(merchantId: number): Promise<MerchantProfile> {
    const deadline = Date.now() + this.waitForEventMs;
    for (;;) {
      const doc = (await this.model.findById(merchantId).lean().exec()) as MerchantProfileDocument | null;
      if (doc) {
        return {
          merchant_id: doc._id,
          country: doc.country,
          baseline_currency: doc.baseline_currency,
          customer_pays_fees: doc.customer_pays_fees,
          is_marketplace_operator: doc.is_marketplace_operator,
          business_name: doc.business_name ?? '',
        };
      }
      if (Date.now() >= deadline) throw new PlatformError('MERCHANT_NOT_FOUND');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
