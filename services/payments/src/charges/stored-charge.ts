import type { Money } from '@ppay/kernel';
import type { ChargeRecord } from './charge';
import type { FeeBreakdown } from './fees';
import type { RefundRecord } from '../refunds/refund';

/*
 * A charge's fee details, refunded total and refunds' `refunded_before` are stored as plain minor
 * units of the charge currency (`amount.currency`), the shape charge documents have always had, so
 * documents already stored are read as they are. The repositories that store charges (charges, and
 * sessions holding their payment) map between that shape and the record's Money here.
 */

/** `fee_details` as stored: minor units of the charge currency. */
export interface StoredFeeDetails {
  base_amount: number;
  transaction_fee: number;
  total_amount: number;
  customer_pays_fees: boolean;
}

export type StoredRefund = Omit<RefundRecord, 'refunded_before'> & { refunded_before: number | null };

export type StoredCharge = Omit<ChargeRecord, 'fee_details' | 'amount_refunded' | 'refunds'> & {
  fee_details: StoredFeeDetails;
  amount_refunded: number;
  refunds: StoredRefund[];
};

const inCurrency = (amount: number, currency: string): Money => ({ amount, currency });

export function storedFeeDetails(f: FeeBreakdown): StoredFeeDetails {
  return {
    base_amount: f.base.amount,
    transaction_fee: f.fee.amount,
    total_amount: f.total.amount,
    customer_pays_fees: f.customer_pays_fees,
  };
}

export function feeDetailsOf(stored: StoredFeeDetails, currency: string): FeeBreakdown {
  return {
    base: inCurrency(stored.base_amount, currency),
    fee: inCurrency(stored.transaction_fee, currency),
    total: inCurrency(stored.total_amount, currency),
    customer_pays_fees: stored.customer_pays_fees,
  };
}

export function storedRefund(r: RefundRecord): StoredRefund {
  return { ...r, refunded_before: r.refunded_before?.amount ?? null };
}

export function storedCharge(c: ChargeRecord): StoredCharge {
  return {
    ...c,
    fee_details: storedFeeDetails(c.fee_details),
    amount_refunded: c.amount_refunded.amount,
    refunds: c.refunds.map(storedRefund),
  };
}

/** The record of a stored charge; one stored before refunds (or disputes) existed has none of their fields. */
export function chargeOf(stored: StoredCharge): ChargeRecord {
  const currency = stored.amount.currency;
  return {
    ...stored,
    fee_details: feeDetailsOf(stored.fee_details, currency),
    amount_refunded: inCurrency(stored.amount_refunded ?? 0, currency),
    amount_disputed: stored.amount_disputed ?? inCurrency(0, currency),
    dispute: stored.dispute ?? null,
    refunds: (stored.refunds ?? []).map((r) => ({
      ...r,
      refunded_before: r.refunded_before == null ? null : inCurrency(r.refunded_before, currency),
    })),
  };
}
