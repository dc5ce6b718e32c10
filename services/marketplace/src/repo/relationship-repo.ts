import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKeyError, nextSequence, outboxEntrySchema, PlatformError, type OutboxEntry } from '@ppay/kernel';
import type {
  RelationshipChanges,
  RelationshipRecord,
  RelationshipRepository,
  RelationshipStatus,
} from '../domain/relationships';

interface RelationshipDocument extends Omit<RelationshipRecord, 'id'> {
  _id: number;
  outbox: OutboxEntry[];
}

const relationshipSchema = new Schema<RelationshipDocument>(
  {
    _id: { type: Number, required: true },
    marketplace_id: { type: Number, required: true, index: true },
    // A business belongs to at most one marketplace (docs/decisions.md, marketplace 7).
    merchant_id: { type: Number, required: true, unique: true },
    commission_rate: { type: String, default: null },
    status: { type: String, required: true },
    // Not unique: FerretDB v1 has no partial indexes and most relationships carry null here.
    invite_token: { type: String, default: null, index: true },
    invited_at: { type: Date, default: null },
    joined_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    version: { type: Number, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'relationships' },
);
relationshipSchema.index({ marketplace_id: 1, status: 1, _id: 1 });

function toRecord(doc: RelationshipDocument | null): RelationshipRecord | null {
  if (!doc) return null;
  const { _id, outbox: _outbox, ...rest } = doc;
  return { id: _id, ...rest };
}

export type RelationshipModel = Model<RelationshipDocument>;

export function relationshipModel(conn: Connection): RelationshipModel {
  return conn.model<RelationshipDocument>('Relationship', relationshipSchema);
}

export class MongoRelationshipRepository implements RelationshipRepository {
  /** `afterWrite` is told which document gained outbox events (the relay's fast path). */
  constructor(
    readonly model: RelationshipModel,
    private readonly afterWrite: (id: number) => void = () => undefined,
  ) {}

  nextId(): Promise<number> {
    return nextSequence(this.model.db, 'relationship');
  }

  async insert(record: RelationshipRecord, event: OutboxEntry): Promise<void> {
    const { id, ...rest } = record;
    try {
      await this.model.create({ _id: id, ...rest, outbox: [event] });
    } catch (err) {
      if (isDuplicateKeyError(err)) {
        throw new PlatformError('MERCHANT_ALREADY_LINKED', undefined, { param: 'merchant_id', cause: err });
      }
      throw err;
    }
    this.afterWrite(id);
  }

  async findByMerchant(merchantId: number): Promise<RelationshipRecord | null> {
    return toRecord(
      (await this.model
        .findOne({ merchant_id: merchantId }, { outbox: 0 })
        .lean()
        .exec()) as RelationshipDocument | null,
    );
  }

  async findByInviteToken(token: string): Promise<RelationshipRecord | null> {
    return toRecord(
      (await this.model.findOne({ invite_token: token }, { outbox: 0 }).lean().exec()) as RelationshipDocument | null,
    );
  }

  async list(
    marketplaceId: number,
    status: RelationshipStatus,
    page: number,
    limit: number,
  ): Promise<{ items: RelationshipRecord[]; total: number }> {
    const filter = { marketplace_id: marketplaceId, status };
    const [docs, total] = await Promise.all([
      this.model
        .find(filter, { outbox: 0 })
        .sort({ _id: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean()
        .exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { items: docs.map((d) => toRecord(d as RelationshipDocument)!), total };
  }

  async update(
    expected: RelationshipRecord,
    fromStatuses: RelationshipStatus[],
    changes: RelationshipChanges,
    event: OutboxEntry,
  ): Promise<RelationshipRecord | null> {
    const doc = await this.model
      .findOneAndUpdate(
        { _id: expected.id, version: expected.version, status: { $in: fromStatuses } },
        { $set: { ...changes, version: expected.version + 1 }, $push: { outbox: event } },
        // No projection: FerretDB's findAndModify does not support one; toRecord drops the outbox.
        { new: true },
      )
      .lean()
      .exec();
    if (doc) this.afterWrite(expected.id);
    return toRecord(doc as RelationshipDocument | null);
  }
}
