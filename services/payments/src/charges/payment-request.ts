import { isMinorUnitAmount, normaliseCurrency, PlatformError } from '@ppay/kernel';
import type { MetadataValue } from './charge';

/** The customer block partners send with charges and sessions (spec 4.1, 4.2). */
export interface CustomerInput {
  email?: string;
  first_name?: string;
  last_name?: string;
  country?: string;
}

/** What charges and sessions both start from; presence still matters for the spec 7.1 messages. */
export interface PaymentRequestBasics {
  amount?: number;
  currency?: string;
  customer?: CustomerInput;
  metadata?: Record<string, MetadataValue>;
}

/**
 * The spec 7.1 presence rules charges and sessions share, in the order a partner would fix them:
 * `amount` missing → 422 `amount is required`; `currency` or `customer.email` missing → 400
 * `Missing required fields`; an unknown currency → 400 `UNSUPPORTED_CURRENCY`.
 */
export function requirePaymentBasics(r: PaymentRequestBasics): { amount: number; currency: string; email: string } {
  if (r.amount === undefined || r.amount === null) {
    throw new PlatformError('AMOUNT_REQUIRED', undefined, { param: 'amount' });
  }
  const email = r.customer?.email?.trim();
  if (!r.currency?.trim() || !email) {
    throw new PlatformError('MISSING_REQUIRED_FIELDS', undefined, {
      param: !r.currency?.trim() ? 'currency' : 'customer.email',
      detail: 'amount, currency and customer.email are required',
    });
  }
  const currency = normaliseCurrency(r.currency);
  if (!currency) {
    throw new PlatformError('UNSUPPORTED_CURRENCY', `Unknown currency ${r.currency}`, { param: 'currency' });
  }
  return { amount: r.amount, currency, email };
}

/** Any amount the API takes, in any currency's minor unit: far inside exact integer arithmetic. */
export const MAX_AMOUNT = 1_000_000_000_000_000;

/** A positive integer number of minor units (money is never fractional or coerced), within MAX_AMOUNT. */
export function requirePositiveAmount(value: number, param: string): number {
  if (!isMinorUnitAmount(value) || value <= 0 || value > MAX_AMOUNT) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `${param} must be a positive integer in the currency's smallest unit`,
      {
        param,
      },
    );
  }
  return value;
}
