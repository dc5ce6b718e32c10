import { addMoney, fractionOf, money, PlatformError, type Money } from '@ppay/kernel';
import type { ProcessorGroup } from '../processors/processors';

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

/**
 * The smallest and largest charge per currency, in minor units. The minimum sits well above every
 * fixed fee (a USD 10¢ charge with a 30¢ fee would otherwise credit the merchant a negative amount);
 * the maximum keeps every sum far inside exact integers. Stripe's figures where it has them
 * (USD 0.50 – 999,999.99).
 */
export const CHARGE_LIMITS: Readonly<Record<string, { min: number; max: number }>> = {
  NGN: { min: 10_000, max: 10_000_000_000 }, // ₦100 – ₦100m
  GHS: { min: 100, max: 100_000_000 }, // GH₵1 – GH₵1m
  KES: { min: 1_000, max: 1_000_000_000 }, // KSh10 – KSh10m
  ZAR: { min: 500, max: 100_000_000 }, // R5 – R1m
  TZS: { min: 100_000, max: 10_000_000_000 }, // TSh1,000 – TSh100m
  XAF: { min: 100, max: 100_000_000 }, // whole units: 100 – 100m FCFA
  XOF: { min: 100, max: 100_000_000 },
  USD: { min: 50, max: 99_999_999 },
  EUR: { min: 50, max: 99_999_999 },
  GBP: { min: 30, max: 99_999_999 },
  CAD: { min: 50, max: 99_999_999 },
  AUD: { min: 50, max: 99_999_999 },
};

/** VALIDATION_FAILED naming the bound when `amount` is outside the charge limits of its currency. */
export function assertChargeable(amount: Money, param: string): void {
  const limits = CHARGE_LIMITS[amount.currency];
  if (!limits) return; // the currency itself is refused by routing
  if (amount.amount < limits.min || amount.amount > limits.max) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `${param} must be between ${limits.min} and ${limits.max} (smallest ${amount.currency} unit)`,
      { param },
    );
  }
}

export function transactionFee(schedule: FeeSchedule, group: ProcessorGroup, base: Money): Money {
  const rule = schedule[group];
  let fee = fractionOf(base, rule.percent).amount;
  const fixed = rule.fixed?.[base.currency] ?? 0;
  if (fixed && base.amount >= (rule.fixedFrom?.[base.currency] ?? 0)) fee += fixed;
  const cap = rule.cap?.[base.currency];
  if (cap !== undefined) fee = Math.min(fee, cap);
  return money(fee, base.currency);
}

/** What a payment costs and who pays the fee, all in the payment currency. */
export interface FeeBreakdown {
  /** What the goods cost, before any fee the customer pays. */
  base: Money;
  fee: Money;
  /** What the customer pays: base + fee when the customer pays fees, otherwise base. */
  total: Money;
  customer_pays_fees: boolean;
}

/** When the customer pays fees they are added on top; otherwise the merchant absorbs them. */
export function feeBreakdown(
  schedule: FeeSchedule,
  group: ProcessorGroup,
  base: Money,
  customerPaysFees: boolean,
): FeeBreakdown {
  const fee = transactionFee(schedule, group, base);
  return {
    base,
    fee,
    total: customerPaysFees ? addMoney(base, fee) : base,
    customer_pays_fees: customerPaysFees,
  };
}
