import {
  installmentTerms,
  isSubscriptionFrequency,
  money,
  PlatformError,
  splitMoney,
  SUBSCRIPTION_FREQUENCIES,
  TRIAL_DAYS_MAX,
  TRIAL_DAYS_MIN,
} from '@ppay/kernel';
import { assertChargeable, CHARGE_LIMITS } from '../charges/fees';
import { requirePaymentBasics, requirePositiveAmount, type PaymentRequestBasics } from '../charges/payment-request';
import { processorGroupFor } from '../processors/processors';
import { checkRedirectUrl } from './redirects';

/** A checkout session request after the gateway's decoding (spec 4.2); presence still matters. */
export interface SessionRequest extends PaymentRequestBasics {
  product_id?: number;
  product_name?: string;
  success_url?: string;
  cancel_url?: string;
  subscription_frequency_key?: string;
  /** Beyond the spec: a free trial on a subscription session (the card is saved, nothing is charged). */
  trial_days?: number;
  /** Pay the amount in parts (issue 26): the first on the hosted page, the others off-session. */
  installments?: { count?: number; interval?: string };
  /** A physical product: how many (1–100) and which variation. */
  quantity?: number;
  variation_id?: string;
  idempotency_key?: string;
}

const MAX_PRODUCT_NAME = 200;
const MAX_EMAIL = 254;
// Checked after the length bound; one non-repeating split, no nested quantifiers (no backtracking).
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A plausible e-mail address: bounded, one @, a dot in the domain, no spaces. */
export function isEmailAddress(value: string): boolean {
  if (value.length > MAX_EMAIL || !EMAIL.test(value)) return false;
  const domain = value.slice(value.indexOf('@') + 1);
  return domain.includes('.') && !domain.startsWith('.') && !domain.endsWith('.');
}

/**
 * The spec 7.1 rules of a session request, in the order a partner would fix them. `priced`: the amount
 * was computed from a physical product's line, so the charge limits speak of the order's total.
 */
export function validateSessionRequest(r: SessionRequest, priced = false) {
  const { amount, currency, email } = requirePaymentBasics(r);
  processorGroupFor(currency); // a session's currency must be one a processor group takes
  requirePositiveAmount(amount, 'amount');
  assertChargeable(money(amount, currency), priced ? 'quantity' : 'amount');
  const productName = r.product_name?.trim() ?? '';
  const productId = r.product_id ? r.product_id : undefined;
  if (productId === undefined && !productName) {
    throw new PlatformError('MISSING_REQUIRED_FIELDS', undefined, {
      param: 'product_name',
      detail: 'one of product_id or product_name is required',
    });
  }
  if (productId !== undefined && (!Number.isSafeInteger(productId) || productId < 1)) {
    throw new PlatformError('VALIDATION_FAILED', 'product_id must be a positive integer', { param: 'product_id' });
  }
  if (productName.length > MAX_PRODUCT_NAME) {
    throw new PlatformError('VALIDATION_FAILED', `product_name must be at most ${MAX_PRODUCT_NAME} characters`, {
      param: 'product_name',
    });
  }
  if (!isEmailAddress(email)) {
    throw new PlatformError('VALIDATION_FAILED', 'customer.email is not a valid e-mail address', {
      param: 'customer.email',
    });
  }
  const frequency = r.subscription_frequency_key?.trim() || undefined;
  if (frequency !== undefined && !isSubscriptionFrequency(frequency)) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `subscription_frequency_key must be one of ${SUBSCRIPTION_FREQUENCIES.join(', ')}`,
      { param: 'subscription_frequency_key' },
    );
  }
  const trialDays = r.trial_days || undefined;
  if (trialDays !== undefined) {
    if (!frequency) {
      throw new PlatformError('VALIDATION_FAILED', 'trial_days needs subscription_frequency_key', {
        param: 'trial_days',
      });
    }
    if (!Number.isSafeInteger(trialDays) || trialDays < TRIAL_DAYS_MIN || trialDays > TRIAL_DAYS_MAX) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        `trial_days must be an integer from ${TRIAL_DAYS_MIN} to ${TRIAL_DAYS_MAX}`,
        { param: 'trial_days' },
      );
    }
  }
  let installments;
  if (r.installments !== undefined) {
    if (frequency) {
      throw new PlatformError('VALIDATION_FAILED', 'installments cannot be combined with subscription_frequency_key', {
        param: 'installments',
      });
    }
    installments = installmentTerms(r.installments);
    // Every part is a charge of its own: the smallest (the last) must be one the processor takes.
    const smallest = splitMoney(money(amount, currency), installments.count).at(-1)!;
    const min = CHARGE_LIMITS[currency]?.min ?? 1;
    if (smallest.amount < min) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        `Each of ${installments.count} installments would be below the smallest ${currency} charge (${min}); use fewer installments`,
        { param: 'installments.count' },
      );
    }
  }
  return {
    amount,
    currency,
    email,
    productId,
    productName,
    successUrl: checkRedirectUrl(r.success_url, 'success_url'),
    cancelUrl: checkRedirectUrl(r.cancel_url, 'cancel_url'),
    frequency,
    trialDays,
    installments,
  };
}
