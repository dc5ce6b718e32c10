import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKeyError, moneySchema, outboxEntrySchema, type Mode, type OutboxEntry } from '@ppay/kernel';
import { walletEntryEvent, type LedgerEntry, type WalletBalance } from '../domain/wallet';
import type { LedgerRepository } from '../domain/ports';

interface LedgerDocument extends LedgerEntry {
  _id: string;
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
    charge_id: { type: String, required: true },
    event_id: { type: String, required: true },
    conversion_details: { type: Schema.Types.Mixed, default: null },
    created_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'ledger_entries' },
);
ledgerSchema.index({ merchant_id: 1, mode: 1, kind: 1, 'amount.currency': 1 });
ledgerSchema.index({ charge_id: 1 });

export type LedgerModel = Model<LedgerDocument>;

export function ledgerModel(conn: Connection): LedgerModel {
  return conn.model<LedgerDocument>('LedgerEntry', ledgerSchema);
}

export class MongoLedgerRepository implements LedgerRepository {
  /** `afterWrite` is told which entry gained an outbox event (the relay's fast path). */
  constructor(
    readonly model: LedgerModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async append(entries: LedgerEntry[]): Promise<{ inserted: LedgerEntry[]; duplicates: number }> {
    const inserted: LedgerEntry[] = [];
    let duplicates = 0;
    // One insert per entry: each is its own atomic fact. The idempotency key is also the document
    // id, so a repeat is refused by the primary key itself.
    for (const entry of entries) {
      try {
        await this.model.create({ _id: entry.idempotency_key, ...entry, outbox: [walletEntryEvent(entry)] });
        inserted.push(entry);
        this.afterWrite(entry.idempotency_key);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        duplicates++;
      }
    }
    return { inserted, duplicates };
  }

  async hasEntriesFor(chargeId: string): Promise<boolean> {
    return (await this.model.exists({ charge_id: chargeId }).exec()) !== null;
  }

  async entriesForCharge(chargeId: string): Promise<LedgerEntry[]> {
    const docs = (await this.model.find({ charge_id: chargeId }, { outbox: 0 }).lean().exec()) as LedgerDocument[];
    return docs.map(({ _id, outbox: _outbox, ...entry }) => entry);
  }

  async balances(merchantId: number, mode: Mode): Promise<WalletBalance[]> {
    // Two $sum groupings (credits, debits): the portable subset of aggregation (no $cond).
    const totals = async (kind: 'credit' | 'debit') =>
      (await this.model
        .aggregate<{ _id: string; total: number; count: number }>([
          { $match: { merchant_id: merchantId, mode, kind } },
          { $group: { _id: '$amount.currency', total: { $sum: '$amount.amount' }, count: { $sum: 1 } } },
        ])
        .exec()) as { _id: string; total: number; count: number }[];
    const [credits, debits] = await Promise.all([totals('credit'), totals('debit')]);
    const byCurrency = new Map<string, WalletBalance>();
    const row = (currency: string) => {
      let b = byCurrency.get(currency);
      if (!b)
        byCurrency.set(
          currency,
          (b = { currency, balance: 0, total_credits: 0, total_debits: 0, transaction_count: 0 }),
        );
      return b;
    };
    for (const c of credits)
      Object.assign(row(c._id), { total_credits: c.total, transaction_count: row(c._id).transaction_count + c.count });
    for (const d of debits)
      Object.assign(row(d._id), { total_debits: d.total, transaction_count: row(d._id).transaction_count + d.count });
    return [...byCurrency.values()]
      .map((b) => ({ ...b, balance: b.total_credits - b.total_debits }))
      .sort((a, b) => a.currency.localeCompare(b.currency));
  }
}
