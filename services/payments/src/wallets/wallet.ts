import { formatMoney, subtractMoney, type MinorUnits, type Mode, type Money } from '@ppay/kernel';
import type { LedgerEntry } from './ledger-entry';

/**
 * One wallet per (merchant, mode, currency): the running totals of its ledger entries, so a balance
 * read is one document whatever the merchant's history (spec 2.9). Every amount is in the wallet's
 * `currency`. Invariants, checked by the wallet reconciler:
 *   available + reserved = total_credits - total_debits
 *   reserved = sum of `reservations`
 *   total_credits / total_debits / transaction_count = sums over the wallet's ledger entries
 */
export interface WalletRecord {
  wallet_id: string;
  merchant_id: number;
  mode: Mode;
  currency: string;
  /** Spendable by a payout (credits - debits - reserved). A refund debit may take it below zero. */
  available: Money;
  /** Held by pending / approved payouts until they are paid or released. */
  reserved: Money;
  total_credits: Money;
  total_debits: Money;
  transaction_count: number;
  /** Grows by one with every applied ledger entry: the wallet's optimistic-concurrency version. */
  seq: number;
  /**
   * The entry applied at `seq`. Whoever applies the next entry first marks this one applied on its
   * own document, so "applied" is always knowable: the entry's mark, or being the wallet's last.
   */
  last_entry_id: string | null;
  /**
   * Open payout reservations by key (`p<payout_request_id>`), each released or settled once: minor
   * units of the wallet's currency, the amounts of the stored map the conditional writes test and move.
   */
  reservations: Record<string, MinorUnits>;
  updated_at: Date;
}

export function walletIdOf(merchantId: number, mode: Mode, currency: string): string {
  return `${merchantId}:${mode}:${currency}`;
}

/** The single-field key of all a merchant's wallets in one mode (a balance read is one indexed lookup). */
export function walletOwnerOf(merchantId: number, mode: Mode): string {
  return `${merchantId}:${mode}`;
}

export function entryWalletId(entry: Pick<LedgerEntry, 'merchant_id' | 'mode' | 'amount'>): string {
  return walletIdOf(entry.merchant_id, entry.mode, entry.amount.currency);
}

/**
 * How one ledger entry changes its wallet's numbers: the `$inc` of the stored document, in minor units
 * of the entry's currency (which is the wallet's), plus the reservation it settles.
 */
export interface WalletEffect {
  available: MinorUnits;
  reserved: MinorUnits;
  total_credits: MinorUnits;
  total_debits: MinorUnits;
  transaction_count: number;
  /** A payout debit removes its reservation in the same write. */
  settles_reservation: string | null;
}

export function walletEffect(entry: LedgerEntry): WalletEffect {
  const a = entry.amount.amount;
  if (entry.kind === 'credit') {
    return {
      available: a,
      reserved: 0,
      total_credits: a,
      total_debits: 0,
      transaction_count: 1,
      settles_reservation: null,
    };
  }
  if (entry.reason === 'payout' && entry.reservation_key) {
    // The money left `available` when it was reserved; paying it out consumes the reservation.
    return {
      available: 0,
      reserved: -a,
      total_credits: 0,
      total_debits: a,
      transaction_count: 1,
      settles_reservation: entry.reservation_key,
    };
  }
  // Any other debit (refunds…) is taken from available, even below zero: it is never refused.
  return {
    available: -a,
    reserved: 0,
    total_credits: 0,
    total_debits: a,
    transaction_count: 1,
    settles_reservation: null,
  };
}

export function emptyWallet(merchantId: number, mode: Mode, currency: string, now: Date): WalletRecord {
  const zero: Money = { amount: 0, currency };
  return {
    wallet_id: walletIdOf(merchantId, mode, currency),
    merchant_id: merchantId,
    mode,
    currency,
    available: zero,
    reserved: zero,
    total_credits: zero,
    total_debits: zero,
    transaction_count: 0,
    seq: 0,
    last_entry_id: null,
    reservations: {},
    updated_at: now,
  };
}

/**
 * Spec 2.9 wallet balance entry (ppay.payments.v1.WalletBalance); `formatted_balance` with Intl in the
 * currency's own minor units. The REST entry's `currency` is the amounts' (the gateway schema).
 */
export interface WalletBalanceEntry {
  balance: Money;
  formatted_balance: string;
  total_credits: Money;
  total_debits: Money;
  transaction_count: number;
  /** Beyond the spec: what a payout may still take, and what pending payouts hold. */
  available: Money;
  reserved: Money;
}

export function walletBalanceEntry(wallet: WalletRecord): WalletBalanceEntry {
  const balance = subtractMoney(wallet.total_credits, wallet.total_debits);
  return {
    balance,
    formatted_balance: formatMoney(balance),
    total_credits: wallet.total_credits,
    total_debits: wallet.total_debits,
    transaction_count: wallet.transaction_count,
    available: wallet.available,
    reserved: wallet.reserved,
  };
}
