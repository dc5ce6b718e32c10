import { fractionOf, money, type Money } from '@ppay/kernel';
import type { ProcessorGroup } from './processors';

/**
 * Transaction fee per processor group: a percentage of the base amount (decimal fraction), plus a
 * fixed part in minor units of the charge currency once the amount reaches `fixedFrom`, capped at
 * `cap`. The percentage is rounded half up to the minor unit before the fixed part is added.
 */
export interface FeeRule {
  percent: string;
  fixed?: Record<string, number>;
  fixedFrom?: Record<string, number>;
  cap?: Record<string, number>;
}

export type FeeSchedule = Record<ProcessorGroup, FeeRule>;

/** Defaults modelled on what partners know: Paystack local cards, pan-African rails, Stripe cards. */
export const DEFAULT_FEE_SCHEDULE: FeeSchedule = {
  naira: { percent: '0.015', fixed: { NGN: 10_000 }, fixedFrom: { NGN: 250_000 }, cap: { NGN: 200_000 } },
  regional: { percent: '0.0195' },
  card: { percent: '0.029', fixed: { USD: 30, EUR: 25, GBP: 20, CAD: 30, AUD: 30 } },
};

export function transactionFee(schedule: FeeSchedule, group: ProcessorGroup, base: Money): Money {
  const rule = schedule[group];
  let fee = fractionOf(base, rule.percent).amount;
  const fixed = rule.fixed?.[base.currency] ?? 0;
  if (fixed && base.amount >= (rule.fixedFrom?.[base.currency] ?? 0)) fee += fixed;
  const cap = rule.cap?.[base.currency];
  if (cap !== undefined) fee = Math.min(fee, cap);
  return money(fee, base.currency);
}

export interface FeeBreakdown {
  base_amount: number;
  transaction_fee: number;
  total_amount: number;
  customer_pays_fees: boolean;
}

/** When the customer pays fees they are added on top; otherwise the merchant absorbs them. */
export function feeBreakdown(
  schedule: FeeSchedule,
  group: ProcessorGroup,
  base: Money,
  customerPaysFees: boolean,
): FeeBreakdown {
  const fee = transactionFee(schedule, group, base).amount;
  return {
    base_amount: base.amount,
    transaction_fee: fee,
    total_amount: customerPaysFees ? base.amount + fee : base.amount,
    customer_pays_fees: customerPaysFees,
  };
}
