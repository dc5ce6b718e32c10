import { Schema, type Connection, type Model } from 'mongoose';
import type { KycStatus, Mode, OutboxEntry } from '@ppay/kernel';
import {
  FERRETDB_SQL_PUSHDOWN,
  isDuplicateKeyError,
  nextSequence,
  outboxEntrySchema,
  withoutRelayFields,
  type RelayFields,
} from '@ppay/runtime';
import type { KycCaseRecord } from './kyc-case';
import type { KycCaseRepository } from '../ports';

interface KycCaseDocument extends Omit<KycCaseRecord, 'id'> {
  _id: number;
  outbox: OutboxEntry[];
  /** A payout account change waits for review (a scalar, so the admin list is one index range). */
  payout_change_pending?: boolean;
}

const mixed = { type: Schema.Types.Mixed, default: null };

/**
 * One document per (merchant, mode): the storage contract of the KYC case aggregate. Nested parts
 * (evidence, link, payout) are written whole with the case, so they are plain sub-documents here; the
 * account and ID numbers inside them are already sealed by the domain.
 */
const kycCaseSchema = new Schema<KycCaseDocument>(
  {
    _id: { type: Number, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    marketplace_id: { type: Number, required: true },
    business_name: { type: String, default: '' },
    status: { type: String, required: true },
    route: { type: String, required: true },
    provider: { type: String, required: true },
    business_type: { type: String, required: true },
    legal_name: { type: String, default: null },
    id_country: { type: String, required: true },
    settlement_currency: { type: String, required: true },
    country_mismatch: { type: Boolean, default: false },
    format: { type: String, required: true },
    owner: mixed,
    business: mixed,
    bank_account: mixed,
    review: mixed,
    connected: mixed,
    link: mixed,
    superseded_links: { type: Schema.Types.Mixed, default: [] },
    payout: mixed,
    submitted_at: { type: Date, required: true },
    reviewed_at: { type: Date, default: null },
    rejection_reason: { type: String, default: null },
    additional_info_request: { type: String, default: null },
    history: { type: Schema.Types.Mixed, default: [] },
    history_summary: mixed,
    payout_change_pending: { type: Boolean, default: false },
    version: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'kyc_cases', minimize: false },
);
// One case per merchant and mode: two first submissions racing each other cannot both insert.
kycCaseSchema.index({ merchant_id: 1, mode: 1 }, { unique: true });
// The review queue: one mode and status, oldest first.
kycCaseSchema.index({ mode: 1, status: 1, submitted_at: 1 });
// Payout account changes waiting for review, oldest submission first.
kycCaseSchema.index({ mode: 1, payout_change_pending: 1, submitted_at: 1 });
// The hosted onboarding page finds its case by the hash of the link token.
kycCaseSchema.index({ 'link.token_hash': 1 });
kycCaseSchema.index({ 'superseded_links.token_hash': 1 });
// The gateway's account events find their case by the connected account's id.
kycCaseSchema.index({ 'connected.gateway_account_id': 1, mode: 1 });

export type KycCaseModel = Model<KycCaseDocument>;

export function kycCaseModel(conn: Connection): KycCaseModel {
  return conn.model<KycCaseDocument>('KycCase', kycCaseSchema);
}

function toRecord(doc: KycCaseDocument | null): KycCaseRecord | null {
  if (!doc) return null;
  const { _id, payout_change_pending: _pending, ...rest } = withoutRelayFields(doc as KycCaseDocument & RelayFields);
  return { id: _id, ...rest, superseded_links: rest.superseded_links ?? [], history: rest.history ?? [] };
}

function fields(record: KycCaseRecord): Omit<KycCaseDocument, '_id' | 'outbox'> {
  const { id: _id, ...rest } = record;
  return { ...rest, payout_change_pending: !!record.payout?.pending_change };
}

export class MongoKycCaseRepository implements KycCaseRepository {
  /** `afterWrite` is told which document gained outbox events (the relay's fast path). */
  constructor(
    readonly model: KycCaseModel,
    private readonly afterWrite: (id: number) => void = () => undefined,
  ) {}

  nextId(): Promise<number> {
    return nextSequence(this.model.db, 'kyc_submission', 1);
  }

  async insert(record: KycCaseRecord, events: OutboxEntry[]): Promise<boolean> {
    try {
      await this.model.create({ _id: record.id, ...fields(record), outbox: events });
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
    if (events.length) this.afterWrite(record.id);
    return true;
  }

  async findByMerchant(merchantId: number, mode: Mode): Promise<KycCaseRecord | null> {
    return toRecord(
      (await this.model
        .findOne({ merchant_id: merchantId, mode }, { outbox: 0 })
        .lean()
        .exec()) as KycCaseDocument | null,
    );
  }

  async findById(id: number): Promise<KycCaseRecord | null> {
    return toRecord((await this.model.findById(id, { outbox: 0 }).lean().exec()) as KycCaseDocument | null);
  }

  async findByLinkToken(tokenHash: string): Promise<KycCaseRecord | null> {
    const doc = await this.model
      .findOne({ $or: [{ 'link.token_hash': tokenHash }, { 'superseded_links.token_hash': tokenHash }] }, { outbox: 0 })
      .lean()
      .exec();
    return toRecord(doc as KycCaseDocument | null);
  }

  async findByGatewayAccount(gatewayAccountId: string, mode: Mode): Promise<KycCaseRecord | null> {
    const doc = await this.model
      .findOne({ 'connected.gateway_account_id': gatewayAccountId, mode }, { outbox: 0 })
      .lean()
      .exec();
    return toRecord(doc as KycCaseDocument | null);
  }

  async save(expectedVersion: number, next: KycCaseRecord, events: OutboxEntry[]): Promise<boolean> {
    const update: Record<string, unknown> = { $set: fields(next) };
    if (events.length) update.$push = { outbox: { $each: events } };
    const res = await this.model.updateOne({ _id: next.id, version: expectedVersion }, update).exec();
    if (res.matchedCount !== 1) return false;
    if (events.length) this.afterWrite(next.id);
    return true;
  }

  list(mode: Mode, status: KycStatus, page: number, limit: number): Promise<{ items: KycCaseRecord[]; total: number }> {
    return this.page({ mode, status }, page, limit);
  }

  listPayoutChanges(mode: Mode, page: number, limit: number): Promise<{ items: KycCaseRecord[]; total: number }> {
    return this.page({ mode, payout_change_pending: true }, page, limit);
  }

  private async page(
    filter: Record<string, unknown>,
    page: number,
    limit: number,
  ): Promise<{ items: KycCaseRecord[]; total: number }> {
    const [docs, total] = await Promise.all([
      this.model
        .find(filter, { outbox: 0 })
        .sort({ submitted_at: 1, _id: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean()
        .exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { items: docs.map((d) => toRecord(d as KycCaseDocument)!), total };
  }

  async scanAfter(afterId: number, limit: number): Promise<KycCaseRecord[]> {
    const docs = await this.model
      .find({ _id: { $gt: afterId } }, { outbox: 0 })
      .sort({ _id: 1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec();
    return docs.map((d) => toRecord(d as KycCaseDocument)!);
  }

  async queueStats(mode: Mode): Promise<{ count: number; oldest: Date | null }> {
    const filter = { mode, status: 'pending_review' };
    const [count, oldest] = await Promise.all([
      this.model.countDocuments(filter).exec(),
      this.model.findOne(filter, { submitted_at: 1 }).sort({ submitted_at: 1 }).lean().exec(),
    ]);
    return { count, oldest: (oldest as { submitted_at?: Date } | null)?.submitted_at ?? null };
  }
}
