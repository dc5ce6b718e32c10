import type { FilterQuery, Model, UpdateQuery } from 'mongoose';
import { FERRETDB_SQL_PUSHDOWN } from '@ppay/runtime';

/**
 * The ledger reconciler's queue, kept on the payments' own documents (charges, and checkout sessions
 * for their payment): `ledger_checked_at` is null until the payment's wallet credits are confirmed.
 * Both collections index it as {status, ledger_checked_at, completed_at}.
 */
interface LedgerChecked {
  _id: string;
  status: string;
  completed_at: Date | null;
  ledger_checked_at?: Date | null;
}

/** Payments that reached `paidStatus` before `before` and are not checked yet, oldest first. */
export async function dueForLedgerCheck<D extends LedgerChecked>(
  model: Model<D>,
  paidStatus: string,
  before: Date,
  limit: number,
): Promise<D[]> {
  const due = { status: paidStatus, ledger_checked_at: null, completed_at: { $lte: before } } as FilterQuery<D>;
  return (await model
    .find(due, { outbox: 0 })
    .sort({ completed_at: 1 })
    .limit(limit)
    .comment(FERRETDB_SQL_PUSHDOWN) // in SQL on the local FerretDB, not a read of every document
    .lean()
    .exec()) as D[];
}

export async function markLedgerChecked<D extends LedgerChecked>(model: Model<D>, id: string, at: Date): Promise<void> {
  await model.updateOne({ _id: id } as FilterQuery<D>, { $set: { ledger_checked_at: at } } as UpdateQuery<D>).exec();
}
