import { PlatformError, type Mode } from '@ppay/kernel';
import type { LedgerEntry } from './ledger-entry';
import { entryWalletId, walletBalanceEntry, walletEffect, type WalletBalanceEntry } from './wallet';
import type { LedgerRepository, WalletStore } from '../ports';
import type { LedgerEntryStore } from './ports';

/** How often one entry retries against a wallet that other entries keep moving. */
const MAX_APPLY_ATTEMPTS = 200;

/**
 * The ledger and its wallets, without a multi-document transaction (docs/architecture.md, "Wallets").
 *
 * An entry is inserted (append-only, unique idempotency key), then applied to its wallet by a
 * conditional write on the wallet's `seq`, which also records the entry as the wallet's
 * `last_entry_id`, then marked applied (`wallet_seq`) on its own document. Before the wallet moves
 * past an entry, the next applier marks that entry, so at every instant:
 *
 *   entry E is applied  ⇔  E is marked  or  E is the wallet's last_entry_id.
 *
 * A crash between any two writes is therefore harmless: a redelivery (append of the same key) or the
 * sweep (`applyPending`) re-runs `apply`, which finds E applied by that rule and only sets the missing
 * mark, or finds it unapplied and applies it once.
 */
export class WalletLedger implements LedgerRepository {
  constructor(
    private readonly entries: LedgerEntryStore,
    private readonly wallets: WalletStore,
    private readonly now: () => Date = () => new Date(),
    private readonly pause: (attempt: number) => Promise<void> = (attempt) =>
      new Promise((resolve) => setTimeout(resolve, Math.min(50, attempt) * Math.random())),
  ) {}

  async append(entries: LedgerEntry[]): Promise<{ inserted: LedgerEntry[]; duplicates: number }> {
    const inserted: LedgerEntry[] = [];
    let duplicates = 0;
    for (const entry of entries) {
      if (await this.entries.insert(entry)) inserted.push(entry);
      else duplicates++;
      // A duplicate may be one a crash left unapplied: apply() finds out and finishes it.
      await this.apply(entry);
    }
    return { inserted, duplicates };
  }

  async balances(merchantId: number, mode: Mode): Promise<WalletBalanceEntry[]> {
    const wallets = await this.wallets.listFor(merchantId, mode);
    return wallets.sort((a, b) => a.currency.localeCompare(b.currency)).map(walletBalanceEntry);
  }

  hasEntriesFor(chargeId: string): Promise<boolean> {
    return this.entries.hasEntriesFor(chargeId);
  }

  entriesForCharge(chargeId: string): Promise<LedgerEntry[]> {
    return this.entries.entriesForCharge(chargeId);
  }

  /** Applies one stored entry to its wallet, exactly once however often it is called. */
  async apply(entry: LedgerEntry): Promise<'applied' | 'already'> {
    const id = entry.idempotency_key;
    const walletId = entryWalletId(entry);
    const effect = walletEffect(entry);
    for (let attempt = 0; attempt < MAX_APPLY_ATTEMPTS; attempt++) {
      const wallet =
        (await this.wallets.get(walletId)) ??
        (await this.wallets.ensure(entry.merchant_id, entry.mode, entry.amount.currency));
      if (wallet.last_entry_id === id) {
        await this.entries.markApplied(id, walletId, wallet.seq);
        return 'already';
      }
      // Read after the wallet: had E been applied before this wallet state, it is marked by now.
      if ((await this.entries.appliedSeq(id)) !== null) return 'already';
      if (wallet.last_entry_id) await this.entries.markApplied(wallet.last_entry_id, walletId, wallet.seq);
      if (await this.wallets.applyAt(walletId, wallet.seq, id, effect, this.now())) {
        await this.entries.markApplied(id, walletId, wallet.seq + 1);
        return 'applied';
      }
      await this.pause(attempt);
    }
    throw new PlatformError('CONFLICT', `wallet ${walletId} kept moving; entry ${id} will be applied on retry`);
  }

  /** The sweep: applies entries a crash left unapplied (and entries older than wallets). */
  async applyPending(limit = 200): Promise<number> {
    let applied = 0;
    for (const entry of await this.entries.unapplied(limit)) {
      if ((await this.apply(entry)) === 'applied') applied++;
    }
    return applied;
  }
}
