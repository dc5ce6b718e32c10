import { Schema, type Connection, type Model } from 'mongoose';
import { PlatformError, type Mode, type OutboxEntry } from '@ppay/kernel';
import {
  isDuplicateKeyError,
  nextSequence,
  outboxEntrySchema,
  withoutRelayFields,
  type RelayFields,
} from '@ppay/runtime';
import type { AccountSettingsPatch, MarketplaceMembership, MarketplaceSettings, MerchantRecord } from './merchant';
import type { MerchantRepository } from './ports';

interface MerchantDocument extends Omit<MerchantRecord, 'id'> {
  _id: number;
  outbox: OutboxEntry[];
  // Written before marketplace data had a mode (read as sandbox: docs/decisions.md, Hardening).
  marketplace?: MarketplaceSettings | null;
  marketplace_id?: number | null;
  marketplace_commission_rate?: string | null;
  membership_relationship_id?: number | null;
  membership_version?: number | null;
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
    customer_pays_fees: { type: Boolean, default: false },
    settings_version: { type: Number, default: 0 },
    settings_updated_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    // {sandbox?, live?}: no default, so a first `$set` of `marketplaces.<mode>` can create it.
    marketplaces: { type: Schema.Types.Mixed },
    created_by_marketplace_id: { type: Number, default: null },
    // {sandbox?, live?} of MarketplaceMembership, same reason.
    membership: { type: Schema.Types.Mixed },
    // {sandbox?, live?}: no default, so a first `$set` of `payout_eligibility.<mode>` can create it.
    payout_eligibility: { type: Schema.Types.Mixed },
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

/** Settings and membership written before modes existed are the sandbox ones (never live). */
function legacySandbox(doc: MerchantDocument) {
  const membership =
    doc.membership_relationship_id != null
      ? {
          marketplace_id: doc.marketplace_id ?? null,
          marketplace_commission_rate: doc.marketplace_commission_rate ?? null,
          relationship_id: doc.membership_relationship_id,
          version: doc.membership_version ?? 0,
        }
      : undefined;
  return {
    marketplaces: doc.marketplace ? { sandbox: doc.marketplace, ...doc.marketplaces } : (doc.marketplaces ?? null),
    membership: membership ? { sandbox: membership, ...doc.membership } : (doc.membership ?? null),
  };
}

function toRecord(doc: MerchantDocument | null): MerchantRecord | null {
  if (!doc) return null;
  const {
    _id,
    marketplace: _marketplace,
    marketplace_id: _marketplaceId,
    marketplace_commission_rate: _rate,
    membership_relationship_id: _rel,
    membership_version: _version,
    ...rest
  } = withoutRelayFields(doc as MerchantDocument & RelayFields);
  return {
    id: _id,
    ...rest,
    // Documents written before settings existed have neither field.
    settings_version: rest.settings_version ?? 0,
    settings_updated_at: rest.settings_updated_at ?? null,
    payout_eligibility: rest.payout_eligibility ?? null,
    ...legacySandbox(doc),
  };
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
    // Per-mode maps are never stored as null: a later `$set` of `<map>.<mode>` could not create the key.
    const { id, membership: _membership, marketplaces: _marketplaces, ...rest } = record;
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
    return toRecord((await this.model.findById(id, { outbox: 0 }).lean().exec()) as MerchantDocument | null);
  }

  async findByEmail(email: string): Promise<MerchantRecord | null> {
    return toRecord((await this.model.findOne({ email }, { outbox: 0 }).lean().exec()) as MerchantDocument | null);
  }

  async findByIds(ids: number[]): Promise<MerchantRecord[]> {
    const docs = await this.model
      .find({ _id: { $in: ids } }, { outbox: 0 })
      .lean()
      .exec();
    return docs.map((d) => toRecord(d as MerchantDocument)!);
  }

  async setMarketplace(
    id: number,
    mode: Mode,
    settings: MarketplaceSettings,
    event: OutboxEntry,
  ): Promise<MerchantRecord | null> {
    const doc = await this.model
      .findOneAndUpdate(
        { _id: id, is_marketplace_operator: true },
        { $set: { [`marketplaces.${mode}`]: settings }, $push: { outbox: event } },
        // No projection: FerretDB's findAndModify does not support one; toRecord drops the outbox.
        { new: true },
      )
      .lean()
      .exec();
    if (doc) this.afterWrite(id);
    return toRecord(doc as MerchantDocument | null);
  }

  async updateSettings(
    id: number,
    expectedVersion: number,
    settings: AccountSettingsPatch & { updated_at: Date },
    event: OutboxEntry,
  ): Promise<MerchantRecord | null> {
    const atVersion =
      expectedVersion === 0
        ? { $or: [{ settings_version: 0 }, { settings_version: { $exists: false } }] }
        : { settings_version: expectedVersion };
    const doc = await this.model
      .findOneAndUpdate(
        { _id: id, ...atVersion },
        {
          $set: {
            customer_pays_fees: settings.customer_pays_fees,
            settings_version: expectedVersion + 1,
            settings_updated_at: settings.updated_at,
          },
          $push: { outbox: event },
        },
        { new: true },
      )
      .lean()
      .exec();
    if (doc) this.afterWrite(id);
    return toRecord(doc as MerchantDocument | null);
  }

  async syncMembership(id: number, mode: Mode, m: MarketplaceMembership): Promise<boolean> {
    const path = `membership.${mode}`;
    const res = await this.model
      .updateOne(
        {
          _id: id,
          $or: [
            { [`${path}.relationship_id`]: { $exists: false } },
            { [`${path}.relationship_id`]: { $lt: m.relationship_id } },
            { [`${path}.relationship_id`]: m.relationship_id, [`${path}.version`]: { $lt: m.version } },
          ],
        },
        { $set: { [path]: m } },
      )
      .exec();
    return res.modifiedCount > 0;
  }

  async clearMembership(id: number, mode: Mode): Promise<void> {
    const unset: Record<string, ''> = { [`membership.${mode}`]: '', [`payout_eligibility.${mode}`]: '' };
    // Written before modes existed, read as sandbox (legacySandbox): cleared with the sandbox ones.
    if (mode === 'sandbox') {
      Object.assign(unset, { marketplace_id: '', marketplace_commission_rate: '', membership_relationship_id: '' });
    }
    await this.model.updateOne({ _id: id }, { $unset: unset }).exec();
  }
}
