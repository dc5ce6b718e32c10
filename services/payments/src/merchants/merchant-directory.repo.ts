import { Schema, type Connection, type Model } from 'mongoose';
import { PlatformError, TtlCache } from '@ppay/kernel';
import type { MerchantDirectory, MerchantProfile } from '../ports';

interface MerchantProfileDocument extends Omit<MerchantProfile, 'merchant_id'> {
  _id: number;
  settings_version?: number;
  updated_at: Date;
}

const profileSchema = new Schema<MerchantProfileDocument>(
  {
    _id: { type: Number, required: true },
    country: { type: String, required: true },
    baseline_currency: { type: String, required: true },
    customer_pays_fees: { type: Boolean, default: false },
    // No default: "never set" must stay distinguishable from version 0 (see applySettings).
    settings_version: { type: Number },
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

  /** The facts fixed at creation. Idempotent: applying the same event twice leaves the same document. */
  async upsertProfile(profile: Omit<MerchantProfile, 'customer_pays_fees'>): Promise<void> {
    const { merchant_id, ...fields } = profile;
    await this.model
      .updateOne({ _id: merchant_id }, { $set: { ...fields, updated_at: new Date() } }, { upsert: true })
      .exec();
    this.cache.delete(merchant_id);
  }

  /**
   * Settings at `version`, unless the document already holds the same or a newer version: the
   * created and settings events come through two consumers, in any order and possibly twice.
   */
  async applySettings(merchantId: number, version: number, settings: { customer_pays_fees: boolean }): Promise<void> {
    const fields = { customer_pays_fees: settings.customer_pays_fees, settings_version: version };
    for (let attempt = 0; ; attempt++) {
      // Each round only repeats after a concurrent insert; a consumer redelivery takes over after a few.
      if (attempt === 3) throw new Error(`settings v${version} of merchant ${merchantId} kept racing; retry later`);
      const older = await this.model
        .updateOne(
          {
            _id: merchantId,
            $or: [{ settings_version: { $exists: false } }, { settings_version: { $lt: version } }],
          },
          { $set: { ...fields, updated_at: new Date() } },
        )
        .exec();
      if (older.matchedCount > 0) break;
      // No document yet (settings overtook the created event), or it is already as new as this.
      const inserted = await this.model
        .updateOne({ _id: merchantId }, { $setOnInsert: { ...fields, updated_at: new Date() } }, { upsert: true })
        .exec();
      if (inserted.upsertedCount > 0) break;
      const current = await this.model.findById(merchantId, { settings_version: 1 }).lean().exec();
      if ((current?.settings_version ?? -1) >= version) break;
      // The created event inserted the document between our two writes: go round once more.
    }
    this.cache.delete(merchantId);
  }

  private async load(merchantId: number): Promise<MerchantProfile> {
    const deadline = Date.now() + this.waitForEventMs;
    for (;;) {
      // A document holding only settings (their event came first) is not a profile yet.
      const doc = (await this.model
        .findOne({ _id: merchantId, country: { $exists: true } })
        .lean()
        .exec()) as MerchantProfileDocument | null;
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
