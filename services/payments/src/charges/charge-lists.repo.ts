import type { Model } from 'mongoose';
import type { Mode } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN } from '@ppay/runtime';
import { listKeyRange } from '../list-pages';
import type { ChargeListQuery } from '../ports';
import { chargeListKey } from './charge-queries';

/** A page of a merchant's charges: equality and one list-key range on scalar fields, sorted on the index. */
export async function listCharges<D>(
  model: Model<D>,
  merchantId: number,
  mode: Mode,
  q: ChargeListQuery,
): Promise<D[]> {
  const filter: Record<string, unknown> = { merchant_id: merchantId, mode, list_key: listKeyRange(q) };
  if (q.status) filter.status = q.status;
  if (q.reference) filter.reference_key = q.reference;
  return (await model
    .find(filter, { outbox: 0 })
    .sort({ list_key: -1 })
    .limit(q.limit)
    .comment(FERRETDB_SQL_PUSHDOWN)
    .lean()
    .exec()) as D[];
}

/**
 * Gives charges stored before lists existed their list key, a batch at a time (a job); 0 once every
 * charge has one.
 */
export async function backfillChargeListKeys<D>(model: Model<D>, limit = 500): Promise<number> {
  const docs = (await model
    .find({ list_key: null }, { _id: 1, created_at: 1 })
    .limit(limit)
    .comment(FERRETDB_SQL_PUSHDOWN)
    .lean()
    .exec()) as unknown as { _id: string; created_at: Date }[];
  for (const d of docs) {
    const key = chargeListKey({ charge_id: d._id, created_at: d.created_at });
    await model.updateOne({ _id: d._id, list_key: null }, { $set: { list_key: key } }).exec();
  }
  return docs.length;
}

/**
 * The backfill as a job that stops once a pass finds nothing: new charges get their key as they are
 * stored, and `{list_key: null}` has no index, so every further pass would scan every charge.
 */
export function chargeListKeysJob<D>(model: Model<D>): () => Promise<number> {
  let done = false;
  return async () => {
    if (done) return 0;
    const n = await backfillChargeListKeys(model);
    done = n === 0;
    return n;
  };
}
