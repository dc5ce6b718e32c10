import {
  divideAndRound,
  fractionOf,
  subtractMoney,
  type Mode,
  type Money,
  type MulticurrencyBreakdown,
  type PaymentOutcome,
} from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { SplitTerms } from '../ports';
import type { LedgerEntry, SplitRecord } from './ledger-entry';

/** A fee charged in the customer's currency, restated in the merchant's at the charge's own ratio. */
function inMerchantCurrency(feeInChargeCurrency: number, charge: Pick<ChargeRecord, 'amount' | 'total'>): number {
  if (charge.amount.currency === charge.total.currency) return feeInChargeCurrency;
  return Number(
    divideAndRound(BigInt(feeInChargeCurrency) * BigInt(charge.total.amount), BigInt(charge.amount.amount)),
  );
}

/**
 * Spec 6.5. The platform's transaction fee is the platform fee; sandbox processors charge nothing of
 * their own, so gateway_fee is zero until a live processor reports one.
 */
export function multicurrencyBreakdown(charge: ChargeRecord): MulticurrencyBreakdown {
  const feeMerchant = inMerchantCurrency(charge.fee_details.transaction_fee, charge);
  const gross = charge.total.amount;
  const net = charge.fee_details.customer_pays_fees ? gross : gross - feeMerchant;
  const m = (amount: number) => ({ amount, currency: charge.total.currency });
  return {
    customer_paid: { amount: charge.fee_details.total_amount, currency: charge.amount.currency },
    merchant_gross: m(gross),
    merchant_net: m(net),
    fees: { platform_fee: m(feeMerchant), gateway_fee: m(0), total: m(feeMerchant) },
    ...(charge.conversion
      ? {
          conversion: {
            from_currency: charge.total.currency,
            to_currency: charge.amount.currency,
            rate: charge.conversion.rate,
            rate_decimal: charge.conversion.rate_decimal,
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
  mode: Mode,
  split: SplitTerms | null,
  eventId: string,
  now: Date,
): LedgerEntry[] {
  const entry = (
    merchantId: number,
    reason: LedgerEntry['reason'],
    amount: Money,
    details: SplitRecord | null = null,
  ): LedgerEntry => ({
    idempotency_key: `${outcome.charge_id}:${merchantId}:${reason}`,
    merchant_id: merchantId,
    mode,
    kind: 'credit',
    reason,
    amount,
    charge_id: outcome.charge_id,
    event_id: eventId,
    conversion_details: details,
    created_at: now,
  });
  if (!outcome.sub_merchant_id) {
    return positive([entry(outcome.merchant_id, 'payment', outcome.breakdown.merchant_net)]);
  }
  const operatorCredit = subtractMoney(outcome.amount, outcome.transaction_fee);
  const entries = [entry(outcome.merchant_id, 'marketplace_operator', operatorCredit)];
  if (split?.active) {
    const commission = fractionOf(outcome.total, split.commission_rate);
    const net = subtractMoney(outcome.total, commission);
    entries.push(
      entry(outcome.sub_merchant_id, 'marketplace_split', net, {
        source: 'marketplace_split',
        marketplace_id: outcome.merchant_id,
        charge_currency: outcome.amount.currency,
        gross_product_amount: outcome.total.amount,
        commission_rate: split.commission_rate,
        commission_amount: commission.amount,
        net_credited: net.amount,
        cart_identifier: outcome.reference ?? outcome.charge_id,
      }),
    );
  }
  return positive(entries);
}

/** A credit is never negative or zero (a fee at least the payment credits nothing, it owes nothing). */
function positive(entries: LedgerEntry[]): LedgerEntry[] {
  return entries.filter((e) => e.amount.amount > 0);
}
