import type { Model } from 'mongoose';
import { FERRETDB_SQL_PUSHDOWN } from '@ppay/runtime';

/**
 * The leased scheduler's three queries on any collection of scheduled documents (subscriptions,
 * installment plans): each document carries `wake_at` (its next action in real time), `lease_owner` and
 * `lease_until`, indexed as `{wake_at: 1, lease_until: 1}`.
 */
export const EPOCH = new Date(0);

/** Ids due by `realNow` whose lease is free, earliest first: a range scan of the claim index. */
export async function dueIdsIn<D>(model: Model<D>, realNow: Date, limit: number): Promise<string[]> {
  const docs = (await model
    .find({ wake_at: { $lte: realNow }, lease_until: { $lte: realNow } } as never, { _id: 1 })
    .sort({ wake_at: 1 })
    .limit(limit)
    .comment(FERRETDB_SQL_PUSHDOWN) // a range scan of the claim index instead of a read of every document
    .lean()
    .exec()) as unknown as { _id: string }[];
  return docs.map((d) => d._id);
}

/** Takes the lease if it is free (and, with dueOnly, if the document is due): one conditional update. */
export async function claimIn<D>(
  model: Model<D>,
  id: string,
  realNow: Date,
  owner: string,
  leaseMs: number,
  options: { dueOnly?: boolean },
): Promise<D | null> {
  const filter: Record<string, unknown> = { _id: id, lease_until: { $lte: realNow } };
  if (options.dueOnly) filter.wake_at = { $lte: realNow };
  return (await model
    .findOneAndUpdate(
      filter as never,
      { $set: { lease_owner: owner, lease_until: new Date(realNow.getTime() + leaseMs) } } as never,
      { new: true },
    )
    .lean()
    .exec()) as D | null;
}

/** Gives the lease back; `retryAt` keeps others off until then. */
export async function releaseIn<D>(model: Model<D>, id: string, owner: string, retryAt?: Date): Promise<void> {
  await model
    .updateOne(
      { _id: id, lease_owner: owner } as never,
      {
        $set: { lease_owner: null, lease_until: retryAt ?? EPOCH },
      } as never,
    )
    .exec();
}
