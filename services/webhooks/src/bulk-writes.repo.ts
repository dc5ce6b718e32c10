import type { Model } from 'mongoose';
import { isDuplicateKeyError } from '@ppay/runtime';

/** Writes of many documents at once that the event and delivery repositories share. */

/** Inserts, ignoring documents whose _id exists; returns the indexes that were duplicates. */
export async function insertIgnoringDuplicates(model: Model<any>, docs: object[]): Promise<Set<number>> {
  if (!docs.length) return new Set();
  try {
    await model.insertMany(docs, { ordered: false, lean: true });
    return new Set();
  } catch (err) {
    const e = err as { writeErrors?: { index?: number; code?: number; err?: { index?: number; code?: number } }[] };
    const errors = e.writeErrors ?? [];
    const allDuplicates =
      (isDuplicateKeyError(err) || errors.length > 0) && errors.every((w) => (w.code ?? w.err?.code) === 11000);
    if (!allDuplicates) throw err;
    if (!errors.length) return new Set(docs.map((_, i) => i));
    return new Set(errors.map((w) => w.index ?? w.err?.index ?? -1));
  }
}

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
