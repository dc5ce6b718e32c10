import type { DisputeFunds, Mode, Money } from '@ppay/kernel';
import { isPaymentCredit, newLedgerEntry, type LedgerEntry } from '../wallets/ledger-entry';

/**
 * The dispute fee per currency, in minor units (DISPUTE_FEES_JSON overrides it): taken from the
 * charge owner's wallet with the disputed amount, given back if the dispute is won. A currency the
 * table does not name has no fee (docs/decisions.md, Disputes).
 */
export type DisputeFeeTable = Readonly<Record<string, number>>;

export const DEFAULT_DISPUTE_FEES: DisputeFeeTable = {
  NGN: 250_000, // ₦2,500
  GHS: 5_000, // GH₵50
  KES: 150_000, // KSh1,500
  ZAR: 15_000, // R150
  TZS: 2_500_000, // TSh25,000
  XAF: 5_000, // whole units
  XOF: 5_000,
  USD: 1_500, // $15, Stripe's US fee
  EUR: 1_500,
  GBP: 1_500,
  CAD: 1_500,
  AUD: 1_500,
};

/**
 * The part of a credit C that a dispute of `disputed` out of `captured` withdraws. A dispute takes
 * the back slice [captured − disputed, captured) of the capture, while refunds take front slices
 * from 0 upwards (refunds.ts): the refund cap keeps refunded + disputed ≤ captured, so the two never
 * overlap, and with the refunds' cumulative rounding every credit loses at most itself in total
 * (exactly itself when the whole capture is refunded or disputed): C − floor(C·(captured − disputed)/captured).
 */
export function disputedShare(credit: number, disputed: number, captured: number): number {
  if (captured <= 0 || disputed <= 0) return 0;
  const kept = (BigInt(credit) * BigInt(Math.max(captured - disputed, 0))) / BigInt(captured);
  return credit - Number(kept);
}

const ROLE_OF_CREDIT: Record<string, DisputeFunds['role']> = {
  payment: 'merchant',
  marketplace_operator: 'operator',
  marketplace_split: 'sub_merchant',
};

export interface DisputedCharge {
  /** The charge's owner: pays the fee. */
  merchant_id: number;
  sub_merchant_id: number | null;
  /** What the customer paid (the refund cap), in the charge currency. */
  captured: Money;
  /** The owner's wallet currency when it has no credit from this charge (its priced currency). */
  fallback_currency: string;
}

/**
 * What a dispute of `amount` takes from which wallet: each payment credit's share (the rule refunds
 * use, marketplace splits included), then the fee from the owner's wallet (in the currency of its
 * credit). Zero amounts are left out.
 */
export function fundsWithdrawn(
  credits: readonly LedgerEntry[],
  charge: DisputedCharge,
  amount: Money,
  fees: DisputeFeeTable,
): { funds: DisputeFunds[]; fee: Money } {
  const funds: DisputeFunds[] = [];
  for (const credit of credits) {
    if (!isPaymentCredit(credit)) continue;
    const share = disputedShare(credit.amount.amount, amount.amount, charge.captured.amount);
    if (share <= 0) continue;
    funds.push({
      merchant_id: credit.merchant_id,
      role: ROLE_OF_CREDIT[credit.reason] ?? 'merchant',
      kind: 'dispute_withdrawal',
      amount: { amount: share, currency: credit.amount.currency },
    });
  }
  const ownerCredit = credits.find((c) => isPaymentCredit(c) && c.merchant_id === charge.merchant_id);
  const currency = ownerCredit?.amount.currency ?? charge.fallback_currency;
  const fee: Money = { amount: fees[currency] ?? 0, currency };
  if (fee.amount > 0) {
    const role: DisputeFunds['role'] = charge.sub_merchant_id ? 'operator' : 'merchant';
    funds.push({ merchant_id: charge.merchant_id, role, kind: 'dispute_fee', amount: fee });
  }
  return { funds, fee };
}

/**
 * The ledger entries of a dispute's withdrawal (debits) or reinstatement (credits), one per movement,
 * each with an idempotency key of the dispute, the wallet's merchant and the movement, so a repeated
 * event moves nothing twice.
 */
export function disputeEntries(
  direction: 'withdrawn' | 'reinstated',
  dispute: { dispute_id: string; charge_id: string },
  funds: readonly DisputeFunds[],
  mode: Mode,
  eventId: string,
  now: Date,
): LedgerEntry[] {
  return funds.map((f) =>
    newLedgerEntry(
      {
        idempotency_key:
          direction === 'withdrawn'
            ? `${dispute.dispute_id}:${f.merchant_id}:${f.kind}`
            : `${dispute.dispute_id}:${f.merchant_id}:${f.kind}:reinstated`,
        merchant_id: f.merchant_id,
        mode,
        kind: direction === 'withdrawn' ? 'debit' : 'credit',
        reason: direction === 'withdrawn' ? f.kind : 'dispute_reinstatement',
        amount: f.amount,
        charge_id: dispute.charge_id,
        event_id: eventId,
      },
      now,
    ),
  );
}
