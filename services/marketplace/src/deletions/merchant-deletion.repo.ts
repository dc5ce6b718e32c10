import { Schema, type Connection, type Model } from 'mongoose';
import { type ComponentName, type Mode, type OutboxEntry } from '@ppay/kernel';
import {
  FERRETDB_SQL_PUSHDOWN,
  isDuplicateKeyError,
  outboxEntrySchema,
  withoutRelayFields,
  type RelayFields,
} from '@ppay/runtime';
import type { MerchantDeletionRecord } from './merchant-deletion';
import type { MerchantDeletionRepository } from './ports';
import type { MerchantDeletionHistory } from '../ports';

interface DeletionDocument extends Omit<MerchantDeletionRecord, 'id'> {
  _id: string;
  outbox: OutboxEntry[];
}

const deletionSchema = new Schema<DeletionDocument>(
  {
    _id: { type: String, required: true },
    deletion_id: { type: String, required: true, unique: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    relationship_id: { type: Number, default: null },
    every_mode: { type: Boolean, required: true },
    requested_by: { type: Number, required: true },
    gateway: { type: Schema.Types.Mixed, required: true },
    acknowledged: { type: [String], default: [] },
    requested_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'merchant_deletions', minimize: false },
);
// A business's deletions in one mode, newest first: the operator's retry, and whether it may join again.
deletionSchema.index({ merchant_id: 1, mode: 1, requested_at: -1 });
deletionSchema.index({ merchant_id: 1, mode: 1, requested_by: 1, requested_at: -1 });

export type DeletionModel = Model<DeletionDocument>;

export function deletionModel(conn: Connection): DeletionModel {
  return conn.model<DeletionDocument>('MerchantDeletion', deletionSchema);
}

function toRecord(doc: DeletionDocument | null): MerchantDeletionRecord | null {
  if (!doc) return null;
  const { _id, ...rest } = withoutRelayFields(doc as DeletionDocument & RelayFields);
  return {
    id: _id,
    ...rest,
    relationship_id: rest.relationship_id ?? null,
    acknowledged: (rest.acknowledged ?? []) as ComponentName[],
  };
}

export class MongoDeletionRepository implements MerchantDeletionRepository, MerchantDeletionHistory {
  /** `afterWrite` is told which document gained outbox events (the relay's fast path). */
  constructor(
    readonly model: DeletionModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async create(record: MerchantDeletionRecord, event: OutboxEntry): Promise<MerchantDeletionRecord> {
    const { id, ...rest } = record;
    try {
      await this.model.create({ _id: id, ...rest, outbox: [event] });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      // A concurrent call recorded it first: that one is the deletion.
      const existing = await this.findById(id);
      if (existing) return existing;
      throw err;
    }
    this.afterWrite(id);
    return record;
  }

  async findById(id: string): Promise<MerchantDeletionRecord | null> {
    return toRecord((await this.model.findById(id, { outbox: 0 }).lean().exec()) as DeletionDocument | null);
  }

  latestBy(operatorId: number, merchantId: number, mode: Mode): Promise<MerchantDeletionRecord | null> {
    return this.latest({ merchant_id: merchantId, mode, requested_by: operatorId });
  }

  latestFor(merchantId: number, mode: Mode): Promise<MerchantDeletionRecord | null> {
    return this.latest({ merchant_id: merchantId, mode });
  }

  /** Scalar equality and a sort on the index: one index range (SQL on the local FerretDB). */
  private async latest(filter: Record<string, unknown>): Promise<MerchantDeletionRecord | null> {
    const [doc] = await this.model
      .find(filter, { outbox: 0 })
      .sort({ requested_at: -1 })
      .limit(1)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec();
    return toRecord((doc ?? null) as DeletionDocument | null);
  }

  async acknowledge(deletionId: string, service: ComponentName): Promise<boolean> {
    const res = await this.model
      .updateOne({ deletion_id: deletionId }, { $addToSet: { acknowledged: service } })
      .exec();
    return res.matchedCount > 0;
  }

  async requestAgain(id: string, event: OutboxEntry): Promise<void> {
    await this.model.updateOne({ _id: id }, { $push: { outbox: event } }).exec();
    this.afterWrite(id);
  }
}
