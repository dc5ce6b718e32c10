import type { Model } from 'mongoose';

/** Deletes up to `limit` documents created before `before` (the 30-day retention; FerretDB has no TTL index). */
export async function deleteBatch(model: Model<any>, before: Date, limit: number): Promise<number> {
  const old = (await model
    .find({ created_at: { $lt: before } }, { _id: 1 })
    .limit(limit)
    .lean()
    .exec()) as {
    _id: string;
  }[];
  if (!old.length) return 0;
  const res = await model.deleteMany({ _id: { $in: old.map((d) => d._id) } }).exec();
  return res.deletedCount ?? 0;
}
