import {
  divideAndRound,
  fractionOf,
  money,
  type Mode,
  type MulticurrencyBreakdown,
  type PaymentOutcome,
} from '@ppay/kernel';
import type { ChargeRecord } from './charges';
import type { SplitTerms } from './ports';

/**
 * The wallet ledger: append-only entries, each with a unique idempotency key derived from the charge
 * and the beneficiary, so however often a payment event arrives (publisher retry, redelivery, replay
 * after the duplicate window) a charge credits each wallet once. Balances are sums (spec 2.9).
 */
export interface LedgerEntry {
  idempotency_key: string;
  merchant_id: number;
  mode: Mode;
  kind: 'credit' | 'debit';
  reason: 'payment' | 'marketplace_operator' | 'marketplace_split';
  amount: number;
  currency: string;
  charge_id: string;
  event_id: string;
  /** Spec 2.11 for marketplace split credits. */
  conversion_details: SplitRecord | null;
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

export interface WalletBalance {
  currency: string;
  balance: number;
  total_credits: number;
  total_debits: number;
  transaction_count: number;
}

export interface LedgerRepository {
  /** Appends entries; returns those that were new (the rest already existed by idempotency key). */
  append(entries: LedgerEntry[]): Promise<{ inserted: LedgerEntry[]; duplicates: number }>;
  balances(merchantId: number, mode: Mode): Promise<WalletBalance[]>;
}

/** A fee charged in the customer's currency, restated in the merchant's at the charge's own ratio. */
function inMerchantCurrency(
  feeInChargeCurrency: number,
  charge: Pick<ChargeRecord, 'amount' | 'total_amount' | 'currency' | 'total_currency'>,
): number {
  if (charge.currency === charge.total_currency) return feeInChargeCurrency;
  return Number(divideAndRound(BigInt(feeInChargeCurrency) * BigInt(charge.total_amount), BigInt(charge.amount)));
}

/**
 * Spec 6.5. The platform's transaction fee is the platform fee; sandbox gateways charge nothing of
 * their own, so gateway_fee is zero until a live adapter reports one.
 */
export function multicurrencyBreakdown(charge: ChargeRecord): MulticurrencyBreakdown {
  const feeMerchant = inMerchantCurrency(charge.fee.transaction_fee, charge);
  const gross = charge.total_amount;
  const net = charge.fee.customer_pays_fees ? gross : gross - feeMerchant;
  const m = (amount: number) => ({ amount, currency: charge.total_currency });
  return {
    customer_paid: { amount: charge.fee.total_amount, currency: charge.currency },
    merchant_gross: m(gross),
    merchant_net: m(net),
    fees: { platform_fee: m(feeMerchant), gateway_fee: m(0), total: m(feeMerchant) },
    ...(charge.conversion
      ? {
          conversion: {
            from_currency: charge.total_currency,
            to_currency: charge.currency,
            rate: charge.conversion.exchange_rate,
            surcharge_percent: charge.conversion.surcharge_percent,
          },
        }
      : {}),
  };
}

/**
 * Wallet credits for a successful payment.
 * - Plain charge: the merchant is credited merchant_net in its pricing currency (total_currency).
 * - Marketplace charge (spec 4.1 steps 1–4): the operator is credited what the customer paid minus
 *   the platform fee, in the charge currency; an active sub-merchant is additionally credited
 *   total_amount minus commission in total_currency (no further platform fee); an inactive one is
 *   skipped and the operator is still credited.
 */
export function creditsFor(
  outcome: PaymentOutcome,
  charge: { amount: number; currency: string; mode: Mode; reference: string | null },
  split: SplitTerms | null,
  eventId: string,
  now: Date,
): LedgerEntry[] {
  const entry = (
    merchantId: number,
    reason: LedgerEntry['reason'],
    amount: number,
    currency: string,
    details: SplitRecord | null = null,
  ): LedgerEntry => ({
    idempotency_key: `${outcome.charge_id}:${merchantId}:${reason}`,
    merchant_id: merchantId,
    mode: charge.mode,
    kind: 'credit',
    reason,
    amount,
    currency,
    charge_id: outcome.charge_id,
    event_id: eventId,
    conversion_details: details,
    created_at: now,
  });
  if (!outcome.sub_merchant_id) {
    return [entry(outcome.merchant_id, 'payment', outcome.breakdown.merchant_net.amount, outcome.total.currency)];
  }
  const operatorCredit = outcome.amount.amount - outcome.transaction_fee.amount;
  const entries = [entry(outcome.merchant_id, 'marketplace_operator', operatorCredit, outcome.amount.currency)];
  if (split?.active) {
    const commission = fractionOf(money(outcome.total.amount, outcome.total.currency), split.commission_rate).amount;
    const net = outcome.total.amount - commission;
    entries.push(
      entry(outcome.sub_merchant_id, 'marketplace_split', net, outcome.total.currency, {
        source: 'marketplace_split',
        marketplace_id: outcome.merchant_id,
        charge_currency: outcome.amount.currency,
        gross_product_amount: outcome.total.amount,
        commission_rate: split.commission_rate,
        commission_amount: commission,
        net_credited: net,
        cart_identifier: charge.reference ?? outcome.charge_id,
      }),
    );
  }
  return entries;
}
