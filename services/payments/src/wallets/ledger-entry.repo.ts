import { Schema, type Connection, type Model } from 'mongoose';
import { type OutboxEntry } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN, isDuplicateKeyError, moneySchema, outboxEntrySchema } from '@ppay/runtime';
import { walletEntryEvent, type LedgerEntry } from './ledger-entry';
import { entryWalletId } from './wallet';
import type { LedgerEntryStore } from './ports';

interface LedgerDocument extends LedgerEntry {
  _id: string;
  /** The wallet it belongs to, and the wallet seq it was applied at (null until marked). */
  wallet_id: string;
  wallet_seq: number | null;
  /** wallet.credited / wallet.debited for this entry, until the relay has published it. */
  outbox: OutboxEntry[];
}

const ledgerSchema = new Schema<LedgerDocument>(
  {
    _id: { type: String, required: true },
    idempotency_key: { type: String, required: true, unique: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    kind: { type: String, required: true },
    reason: { type: String, required: true },
    amount: { type: moneySchema, required: true },
    reservation_key: { type: String, default: null },
    charge_id: { type: String, default: '' },
    event_id: { type: String, required: true },
    conversion_details: { type: Schema.Types.Mixed, default: null },
    created_at: { type: Date, required: true },
    wallet_id: { type: String, default: null },
    wallet_seq: { type: Number, default: null },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'ledger_entries' },
);
ledgerSchema.index({ charge_id: 1 });
// The reconciler's sums per wallet, and the sweep of unapplied entries: one field each.
ledgerSchema.index({ wallet_id: 1 });
ledgerSchema.index({ wallet_seq: 1 });

export type LedgerModel = Model<LedgerDocument>;

export function ledgerModel(conn: Connection): LedgerModel {
  return conn.model<LedgerDocument>('LedgerEntry', ledgerSchema);
}

/**
 * The append-only entries (`ledger_entries`). Applying them to wallets is `WalletLedger`'s job
 * (wallet-ledger.ts); this adapter stores each entry with its wallet.* event and the
 * applied-to-wallet mark (`wallet_seq`, `wallet_id`), all looked up by the entry id or one field.
 */
export class MongoLedgerEntries implements LedgerEntryStore {
  /** `afterWrite` is told which entry gained an outbox event (the relay's fast path). */
  constructor(
    readonly model: LedgerModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async insert(entry: LedgerEntry): Promise<boolean> {
    // The idempotency key is also the document id, so a repeat is refused by the primary key itself.
    try {
      await this.model.create({
        _id: entry.idempotency_key,
        ...entry,
        wallet_id: entryWalletId(entry),
        wallet_seq: null,
        outbox: [walletEntryEvent(entry)],
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return false;
    }
    this.afterWrite(entry.idempotency_key);
    return true;
  }

  async get(entryId: string): Promise<LedgerEntry | null> {
    const doc = await this.model.findById(entryId, { outbox: 0 }).lean().exec();
    return doc ? toEntry(doc) : null;
  }

  async appliedSeq(entryId: string): Promise<number | null> {
    const doc = await this.model.findById(entryId, { wallet_seq: 1 }).lean().exec();
    return doc?.wallet_seq ?? null;
  }

  async markApplied(entryId: string, walletId: string, seq: number): Promise<void> {
    // By id only (an entry is applied at exactly one seq, so repeating the write is harmless).
    await this.model.updateOne({ _id: entryId }, { $set: { wallet_seq: seq, wallet_id: walletId } }).exec();
  }

  async unapplied(limit: number): Promise<LedgerEntry[]> {
    const docs = await this.model
      .find({ wallet_seq: null }, { outbox: 0 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec();
    return docs.map(toEntry);
  }

  async hasEntriesFor(chargeId: string): Promise<boolean> {
    // Once per charge checked by the reconciler: in SQL over the charge_id index on the local FerretDB
    // (otherwise a read of every ledger entry per charge, which made the reconciler quadratic).
    return (await this.model.exists({ charge_id: chargeId }).comment(FERRETDB_SQL_PUSHDOWN).exec()) !== null;
  }

  async entriesForCharge(chargeId: string): Promise<LedgerEntry[]> {
    // Read for every marketplace payment (its split is judged once) and every physical order: in SQL over the
    // charge_id index on the local FerretDB, never a read of the whole ledger per payment.
    const docs = (await this.model
      .find({ charge_id: chargeId }, { outbox: 0 })
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec()) as LedgerDocument[];
    return docs.map(toEntry);
  }

  async appliedTotals(walletId: string) {
    // Two $sum groupings (the portable subset of aggregation: no $cond), over the marked entries.
    const rows = (await this.model
      .aggregate<{ _id: string; total: number; count: number }>([
        { $match: { wallet_id: walletId, wallet_seq: { $gt: 0 } } },
        { $group: { _id: '$kind', total: { $sum: '$amount.amount' }, count: { $sum: 1 } } },
      ])
      .exec()) as { _id: string; total: number; count: number }[];
    const credit = rows.find((r) => r._id === 'credit');
    const debit = rows.find((r) => r._id === 'debit');
    return {
      total_credits: credit?.total ?? 0,
      total_debits: debit?.total ?? 0,
      transaction_count: (credit?.count ?? 0) + (debit?.count ?? 0),
    };
  }
}

function toEntry(doc: LedgerDocument): LedgerEntry {
  const {
    _id,
    outbox: _o,
    wallet_id: _w,
    wallet_seq: _s,
    ...entry
  } = doc as LedgerDocument & {
    outbox_pending_since?: unknown;
  };
  delete (entry as { outbox_pending_since?: unknown }).outbox_pending_since;
  return { ...entry, idempotency_key: _id };
}
