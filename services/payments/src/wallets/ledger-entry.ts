import { outboxEvent, SUBJECTS, type Mode, type Money, type OutboxEntry } from '@ppay/kernel';

/**
 * The wallet ledger: append-only entries, each with a unique idempotency key derived from the charge
 * and the beneficiary, so however often a payment event arrives (publisher retry, redelivery, replay
 * after the duplicate window) a charge credits each wallet once. Balances are sums (spec 2.9).
 */
/**
 * Why an entry exists. Open by design: a new kind of money movement (refunds…) adds one line here,
 * and the wallet picks it up through `walletEffect` without further change.
 */
export type LedgerReason =
  | 'payment'
  | 'marketplace_operator'
  | 'marketplace_split'
  /** The final debit of a paid payout: it consumes the payout's reservation, not available money. */
  | 'payout'
  /** A refund's reversal of the charge's credits (docs/decisions.md, Refunds). */
  | 'refund'
  | 'marketplace_split_reversal'
  /** A dispute's withdrawal of its share of a payment credit, and the dispute fee (docs/decisions.md, Disputes). */
  | 'dispute_withdrawal'
  | 'dispute_fee'
  /** A won dispute gives back each of its withdrawals. */
  | 'dispute_reinstatement'
  /** A paid payout whose transfer the processor reversed: its debit given back (docs/decisions.md C27). */
  | 'payout_reversal';

/** The credits a payment makes (reversed by refunds, shared by disputes); a reinstatement is not one. */
const PAYMENT_CREDIT_REASONS: readonly LedgerReason[] = ['payment', 'marketplace_operator', 'marketplace_split'];

export function isPaymentCredit(entry: Pick<LedgerEntry, 'kind' | 'reason'>): boolean {
  return entry.kind === 'credit' && PAYMENT_CREDIT_REASONS.includes(entry.reason);
}

export interface LedgerEntry {
  idempotency_key: string;
  merchant_id: number;
  mode: Mode;
  kind: 'credit' | 'debit';
  reason: LedgerReason;
  amount: Money;
  /** For a payout debit: the wallet reservation it settles (`walletEffect` moves it out of `reserved`). */
  reservation_key?: string | null;
  charge_id: string;
  event_id: string;
  /** Spec 2.11 for marketplace split credits; the reversal's record for their refund debits. */
  conversion_details: SplitRecord | SplitReversalRecord | null;
  created_at: Date;
}

export interface SplitRecord {
  source: 'marketplace_split';
  marketplace_id: number;
  charge_currency: string;
  gross_product_amount: number;
  commission_rate: string;
  commission_amount: number;
  net_credited: number;
  cart_identifier: string;
}

/** A refund's reversal of a sub-merchant's split credit: gross_reversed = commission_reversed + net_reversed. */
export interface SplitReversalRecord {
  source: 'marketplace_split_reversal';
  marketplace_id: number;
  refund_id: string;
  commission_rate: string;
  gross_reversed: number;
  commission_reversed: number;
  net_reversed: number;
  cart_identifier: string;
}

/** What a new entry is made of: everything but its time, and its split record when it has one. */
export type LedgerEntryDraft = Omit<LedgerEntry, 'conversion_details' | 'created_at'> &
  Partial<Pick<LedgerEntry, 'conversion_details'>>;

/** A new ledger entry (a payment's credit, a refund's debit, a payout's debit): the one place one is drafted. */
export function newLedgerEntry(draft: LedgerEntryDraft, now: Date): LedgerEntry {
  return { ...draft, conversion_details: draft.conversion_details ?? null, created_at: now };
}

/**
 * wallet.credited / wallet.debited for one ledger entry (spec 6.4): written into the entry's own
 * document, so the entry and its event are one insert and a repeated append (same idempotency key)
 * publishes nothing twice.
 */
export function walletEntryEvent(entry: LedgerEntry): OutboxEntry {
  return outboxEvent(
    entry.kind === 'credit' ? SUBJECTS.walletCredited : SUBJECTS.walletDebited,
    {
      entry_id: entry.idempotency_key,
      merchant_id: entry.merchant_id,
      kind: entry.kind,
      reason: entry.reason,
      amount: entry.amount,
      charge_id: entry.charge_id || null,
      split: entry.conversion_details ? { ...entry.conversion_details } : null,
      created_at: entry.created_at.toISOString(),
    },
    { merchantId: entry.merchant_id, mode: entry.mode },
  );
}
