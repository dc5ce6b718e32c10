import type { LedgerEntry } from './ledger-entry';

/** The append-only ledger entries (`ledger_entries`), each with its applied-to-wallet mark. */
export interface LedgerEntryStore {
  /** Inserts the entry with its wallet.* event; false when the idempotency key is taken. */
  insert(entry: LedgerEntry): Promise<boolean>;
  get(entryId: string): Promise<LedgerEntry | null>;
  /** The wallet seq at which the entry was applied, or null while it is not marked. */
  appliedSeq(entryId: string): Promise<number | null>;
  /** Sets the mark (idempotent: an entry is applied at exactly one seq). */
  markApplied(entryId: string, walletId: string, seq: number): Promise<void>;
  /** Entries without a mark (crashed before applying, or written before wallets existed). */
  unapplied(limit: number): Promise<LedgerEntry[]>;
  hasEntriesFor(chargeId: string): Promise<boolean>;
  /** Every entry written for this charge (refunds reverse its credits). */
  entriesForCharge(chargeId: string): Promise<LedgerEntry[]>;
  /** Sums over the wallet's marked entries (the reconciler). */
  appliedTotals(walletId: string): Promise<{ total_credits: number; total_debits: number; transaction_count: number }>;
}
