import { divideAndRound, type MulticurrencyBreakdown, type PaymentOutcome } from '@ppay/kernel';
import type { ChargeRecord } from './charge';

/** payment.succeeded / payment.failed for a charge (spec 6.4/6.5 data, kept in canonical form). */
export function paymentOutcome(
  charge: ChargeRecord,
  status: 'succeeded' | 'failed',
  failureReason: string | null,
  completedAt: Date,
): PaymentOutcome {
  return {
    charge_id: charge.charge_id,
    transaction_id: charge.transaction_id,
    merchant_id: charge.merchant_id,
    status,
    payment_type: 'one_time',
    gateway: charge.payment_gateway,
    reference: charge.reference,
    amount: charge.fee_details.total,
    total: charge.total,
    transaction_fee: charge.fee_details.fee,
    customer_pays_fees: charge.fee_details.customer_pays_fees,
    breakdown: multicurrencyBreakdown(charge),
    customer: charge.customer,
    sub_merchant_id: charge.sub_merchant_id,
    failure_reason: failureReason,
    completed_at: completedAt.toISOString(),
    session_id: null,
    product: null,
    subscription_frequency_key: null,
    metadata: charge.metadata,
    installment: null,
    variation: null,
    quantity: null,
  };
}

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
  const feeMerchant = inMerchantCurrency(charge.fee_details.fee.amount, charge);
  const gross = charge.total.amount;
  const net = charge.fee_details.customer_pays_fees ? gross : gross - feeMerchant;
  const m = (amount: number) => ({ amount, currency: charge.total.currency });
  return {
    customer_paid: charge.fee_details.total,
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
