import { Schema, type Connection, type Model } from 'mongoose';
import { PlatformError, type Mode, type OutboxEntry } from '@ppay/kernel';
import { isDuplicateKeyError, nextSequence, outboxEntrySchema, withoutRelayFields } from '@ppay/runtime';
import type { RelationshipRepository } from '../ports';
import type { RelationshipChanges, RelationshipRecord, RelationshipStatus } from './relationship';

interface RelationshipDocument extends Omit<RelationshipRecord, 'id'> {
  _id: number;
  outbox: OutboxEntry[];
}

const relationshipSchema = new Schema<RelationshipDocument>(
  {
    _id: { type: Number, required: true },
    marketplace_id: { type: Number, required: true, index: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    commission_rate: { type: String, default: null },
    status: { type: String, required: true },
    invite_token: { type: String, default: null },
    invited_at: { type: Date, default: null },
    joined_at: { type: Date, default: null },
    invitation_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    version: { type: Number, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'relationships' },
);
// A business belongs to at most one marketplace per mode (docs/decisions.md, marketplace 7 and
// Hardening): the slot is this document, made only when the business joins.
relationshipSchema.index({ merchant_id: 1, mode: 1 }, { unique: true });
relationshipSchema.index({ marketplace_id: 1, mode: 1, status: 1, _id: 1 });

function toRecord(doc: RelationshipDocument | null): RelationshipRecord | null {
  if (!doc) return null;
  const { _id, ...rest } = withoutRelayFields(doc);
  // Relationships written before modes existed are sandbox ones (the boot migration stores it too).
  return { id: _id, ...rest, mode: rest.mode ?? 'sandbox', invitation_id: rest.invitation_id ?? null };
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
        // The same id again is a repeated insert (an acceptance finished twice): nothing to do.
        if (await this.model.exists({ _id: id }).exec()) return;
        throw new PlatformError('MERCHANT_ALREADY_LINKED', undefined, { param: 'merchant_id', cause: err });
      }
      throw err;
    }
    this.afterWrite(id);
  }

  async findById(id: number): Promise<RelationshipRecord | null> {
    return toRecord((await this.model.findById(id, { outbox: 0 }).lean().exec()) as RelationshipDocument | null);
  }

  async findByMerchant(merchantId: number, mode: Mode): Promise<RelationshipRecord | null> {
    return toRecord(
      (await this.model
        .findOne({ merchant_id: merchantId, mode }, { outbox: 0 })
        .lean()
        .exec()) as RelationshipDocument | null,
    );
  }

  async list(
    marketplaceId: number,
    mode: Mode,
    status: RelationshipStatus,
    page: number,
    limit: number,
  ): Promise<{ items: RelationshipRecord[]; total: number }> {
    const filter = { marketplace_id: marketplaceId, mode, status };
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

  async remove(id: number): Promise<void> {
    await this.model.deleteOne({ _id: id }).exec();
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
