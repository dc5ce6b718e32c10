import { Schema, type Connection, type FilterQuery, type Model } from 'mongoose';
import { type Mode } from '@ppay/kernel';
import { isDuplicateKeyError } from '@ppay/runtime';
import {
  openKey,
  type InvitationAddress,
  type InvitationQuery,
  type InvitationRecord,
  type InvitationStatus,
} from './invitation';
import type { InvitationRepository } from './ports';

interface InvitationDocument extends Omit<InvitationRecord, 'id'> {
  _id: string;
  /**
   * Unique. While pending: operator, business and mode, so one operator has one open invitation per
   * business and mode; once closed: the invitation's own id (FerretDB has no partial indexes).
   */
  open_key: string;
}

const invitationSchema = new Schema<InvitationDocument>(
  {
    _id: { type: String, required: true },
    marketplace_id: { type: Number, required: true },
    marketplace_name: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    commission_rate: { type: String, default: null },
    status: { type: String, required: true },
    invited_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
    responded_at: { type: Date, default: null },
    relationship_id: { type: Number, default: null },
    relationship_written: { type: Boolean, default: false },
    addressed_by: { type: String, default: 'merchant_id' },
    open_key: { type: String, required: true, unique: true },
  },
  { versionKey: false, collection: 'invitations' },
);
invitationSchema.index({ merchant_id: 1, mode: 1, status: 1, invited_at: -1 });
invitationSchema.index({ marketplace_id: 1, mode: 1, status: 1, invited_at: -1 });
invitationSchema.index({ status: 1, expires_at: 1 });
invitationSchema.index({ status: 1, relationship_written: 1, responded_at: 1 });

export type InvitationModel = Model<InvitationDocument>;

export function invitationModel(conn: Connection): InvitationModel {
  return conn.model<InvitationDocument>('Invitation', invitationSchema);
}

function toRecord(doc: InvitationDocument | null): InvitationRecord | null {
  if (!doc) return null;
  const { _id, open_key: _key, ...rest } = doc;
  // Invitations stored before addressing existed were all by id.
  return { id: _id, ...rest, addressed_by: rest.addressed_by ?? 'merchant_id' };
}

/** The stored filter for an effective status (expiry is computed at read). */
function statusFilter(status: InvitationStatus | undefined, now: Date): FilterQuery<InvitationDocument> {
  if (status === 'pending') return { status: 'pending', expires_at: { $gt: now } };
  if (status === 'expired') return { $or: [{ status: 'expired' }, { status: 'pending', expires_at: { $lte: now } }] };
  return status ? { status } : {};
}

export class MongoInvitationRepository implements InvitationRepository {
  constructor(readonly model: InvitationModel) {}

  async insertPending(record: InvitationRecord): Promise<boolean> {
    const { id, ...rest } = record;
    try {
      await this.model.create({
        _id: id,
        ...rest,
        open_key: openKey(rest.marketplace_id, rest.merchant_id, rest.mode, rest.addressed_by),
      });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async findById(id: string): Promise<InvitationRecord | null> {
    return toRecord((await this.model.findById(id).lean().exec()) as InvitationDocument | null);
  }

  async findOpen(
    marketplaceId: number,
    merchantId: number,
    mode: Mode,
    addressedBy: InvitationAddress,
  ): Promise<InvitationRecord | null> {
    const key = openKey(marketplaceId, merchantId, mode, addressedBy);
    return toRecord((await this.model.findOne({ open_key: key }).lean().exec()) as InvitationDocument | null);
  }

  async closePending(
    id: string,
    to: Exclude<InvitationStatus, 'pending'>,
    at: Date,
    options: { notExpiredAt?: Date; relationshipId?: number } = {},
  ): Promise<InvitationRecord | null> {
    const filter: FilterQuery<InvitationDocument> = { _id: id, status: 'pending' };
    if (options.notExpiredAt) filter.expires_at = { $gt: options.notExpiredAt };
    const doc = await this.model
      .findOneAndUpdate(
        filter,
        {
          $set: {
            status: to,
            responded_at: at,
            open_key: id,
            relationship_id: options.relationshipId ?? null,
            relationship_written: false,
          },
        },
        { new: true },
      )
      .lean()
      .exec();
    return toRecord(doc as InvitationDocument | null);
  }

  async reopenAcceptance(id: string, relationshipId: number): Promise<boolean> {
    // The open key stays the id: the operator may have sent a new invitation meanwhile.
    const res = await this.model
      .updateOne(
        { _id: id, status: 'accepted', relationship_id: relationshipId, relationship_written: false },
        { $set: { status: 'pending', responded_at: null, relationship_id: null } },
      )
      .exec();
    return res.modifiedCount > 0;
  }

  async markRelationshipWritten(id: string): Promise<void> {
    await this.model.updateOne({ _id: id, relationship_written: false }, { $set: { relationship_written: true } });
  }

  async list(
    query: InvitationQuery,
    now: Date,
    page: number,
    limit: number,
  ): Promise<{ items: InvitationRecord[]; total: number }> {
    const owner =
      query.direction === 'sent' ? { marketplace_id: query.merchant_id } : { merchant_id: query.merchant_id };
    const filter: FilterQuery<InvitationDocument> = { ...owner, mode: query.mode, ...statusFilter(query.status, now) };
    const [docs, total] = await Promise.all([
      this.model
        .find(filter)
        .sort({ invited_at: -1, _id: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean()
        .exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { items: docs.map((d) => toRecord(d as InvitationDocument)!), total };
  }

  async dueForExpiry(now: Date, limit: number): Promise<InvitationRecord[]> {
    const docs = await this.model
      .find({ status: 'pending', expires_at: { $lte: now } })
      .sort({ expires_at: 1 })
      .limit(limit)
      .lean()
      .exec();
    return docs.map((d) => toRecord(d as InvitationDocument)!);
  }

  async unfinishedAcceptances(acceptedBefore: Date, limit: number): Promise<InvitationRecord[]> {
    const docs = await this.model
      .find({ status: 'accepted', relationship_written: false, responded_at: { $lte: acceptedBefore } })
      .sort({ responded_at: 1 })
      .limit(limit)
      .lean()
      .exec();
    return docs.map((d) => toRecord(d as InvitationDocument)!);
  }
}
