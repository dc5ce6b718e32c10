import { FERRETDB_SQL_PUSHDOWN } from '@ppay/runtime';
import type { ChargeRecord } from './charge';
import { toRecord, type ChargeDocument, type ChargeModel } from './charge.repo';
import type { LiveChargeLookups } from '../processors/live-charge-reconciler';

/**
 * The reconciler's view of live charges, over `live_lookup_at` (set at insert for live charges only,
 * cleared when a charge completes): one range of one index, which MongoDB serves directly and the
 * local FerretDB runs in SQL, so a sweep reads only the live charges due, never every charge.
 */
export class MongoLiveChargeLookups implements LiveChargeLookups {
  constructor(private readonly model: ChargeModel) {}

  async due(before: Date, limit: number): Promise<ChargeRecord[]> {
    const docs = (await this.model
      .find({ live_lookup_at: { $lte: before } }, { outbox: 0 })
      .sort({ live_lookup_at: 1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec()) as ChargeDocument[];
    return docs.map(toRecord);
  }

  async schedule(chargeId: string, askedAt: Date | null): Promise<void> {
    await this.model.updateOne({ _id: chargeId }, { $set: { live_lookup_at: askedAt } }).exec();
  }

  async countStale(before: Date): Promise<number> {
    // The count command (countDocuments is an aggregation, which FerretDB does not push down).
    const res = (await this.model.db.db!.command({
      count: this.model.collection.collectionName,
      // Every watched live charge is in this range of the index (no date is before the epoch).
      query: { live_lookup_at: { $gte: new Date(0) }, status: 'pending', created_at: { $lte: before } },
      comment: FERRETDB_SQL_PUSHDOWN,
    })) as { n: number };
    return res.n;
  }
}
