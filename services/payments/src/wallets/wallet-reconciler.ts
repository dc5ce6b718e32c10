import { walletEffect, type WalletRecord } from './wallet';
import type { WalletStore } from '../ports';
import type { LedgerEntryStore } from './ports';

export interface WalletDrift {
  wallet_id: string;
  /** What the wallet says minus what its entries (or reservations) add up to, in its currency's minor units. */
  total_credits: number;
  total_debits: number;
  transaction_count: number;
  /** available + reserved - (credits - debits): non-zero means money appeared or vanished. */
  balance: number;
  /** reserved - sum(reservations). */
  reserved: number;
}

/**
 * Proves, wallet by wallet, that the running totals equal the sums of the wallet's ledger entries.
 * The sum covers the marked entries plus the wallet's last entry when its mark is not written yet
 * (see WalletLedger: exactly the applied set). A wallet that moved while it was summed is checked
 * again on the next pass rather than reported.
 */
export class WalletReconciler {
  constructor(
    private readonly entries: LedgerEntryStore,
    private readonly wallets: WalletStore,
    private readonly pageSize = 200,
  ) {}

  async run(): Promise<{ checked: number; drifting: WalletDrift[] }> {
    const drifting: WalletDrift[] = [];
    let checked = 0;
    let after: string | null = null;
    for (;;) {
      const page = await this.wallets.page(after, this.pageSize);
      if (!page.length) break;
      for (const wallet of page) {
        const drift = await this.check(wallet);
        if (drift === 'moved') continue;
        checked++;
        if (drift) drifting.push(drift);
      }
      after = page[page.length - 1]!.wallet_id;
    }
    return { checked, drifting };
  }

  private async check(wallet: WalletRecord): Promise<WalletDrift | null | 'moved'> {
    const sums = await this.entries.appliedTotals(wallet.wallet_id);
    if (wallet.last_entry_id && (await this.entries.appliedSeq(wallet.last_entry_id)) === null) {
      const last = await this.entries.get(wallet.last_entry_id);
      if (last) {
        const e = walletEffect(last);
        sums.total_credits += e.total_credits;
        sums.total_debits += e.total_debits;
        sums.transaction_count += e.transaction_count;
      }
    }
    const again = await this.wallets.get(wallet.wallet_id);
    if (!again || again.seq !== wallet.seq) return 'moved';
    const reservations = Object.values(wallet.reservations).reduce((s, a) => s + a, 0);
    const drift: WalletDrift = {
      wallet_id: wallet.wallet_id,
      total_credits: wallet.total_credits.amount - sums.total_credits,
      total_debits: wallet.total_debits.amount - sums.total_debits,
      transaction_count: wallet.transaction_count - sums.transaction_count,
      balance:
        wallet.available.amount + wallet.reserved.amount - (wallet.total_credits.amount - wallet.total_debits.amount),
      reserved: wallet.reserved.amount - reservations,
    };
    const clean =
      !drift.total_credits && !drift.total_debits && !drift.transaction_count && !drift.balance && !drift.reserved;
    return clean ? null : drift;
  }
}
