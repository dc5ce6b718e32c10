import { PlatformError, type Mode, type Money } from '@ppay/kernel';
import type { ProcessorGroup } from './processors';

/** What the hosted checkout form posts. */
export interface CardInput {
  number: string;
  expiry: string;
  cvc: string;
  name?: string;
}

export interface ValidCard {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  name: string;
}

/** What a session keeps of a card: never the number. */
export interface CardSummary {
  brand: string;
  last4: string;
}

/**
 * What is kept of a card so it can be charged again without the customer. Never the number: sandbox
 * keeps the test card's brand, last 4 and how it behaves off-session; a live processor keeps its own
 * tokens (ProcessorSavedCard).
 */
export type SavedCard = SandboxSavedCard | ProcessorSavedCard;

export interface SandboxSavedCard extends CardSummary {
  /** The sandbox outcome profile of off-session charges (the test card's behaviour). */
  off_session: { approved: true } | { approved: false; decline_code: string; message: string };
}

/** A card saved at a live processor: its ids of the customer and of the payment method to charge again. */
export interface ProcessorSavedCard extends CardSummary {
  /** The connector that holds it, e.g. `stripe`. */
  processor: string;
  /** The processor's customer the method is attached to (Stripe `cus_…`). */
  customer_reference: string;
  /** The processor's payment method (Stripe `pm_…`). */
  method_reference: string;
}

export function isProcessorSavedCard(card: SavedCard): card is ProcessorSavedCard {
  return 'processor' in card && typeof card.processor === 'string';
}

export interface TestCard {
  number: string;
  outcome: 'succeeds' | 'declines' | 'fails_after_delay';
  description: string;
}

/**
 * A declined answer may name the processor's payment that was declined (a live processor makes one per
 * off-session charge): the charge records it, so the processor's later event about it matches.
 */
export type CardResult =
  | { approved: true; processor_reference: string; card: CardSummary }
  | { approved: false; decline_code: string; message: string; card: CardSummary; processor_reference?: string };

/** A card payment for a processor to authorise. */
export interface CardPayment {
  charge_id: string;
  group: ProcessorGroup;
  mode: Mode;
  amount: Money;
}

/** A saved card's charge without the customer (a renewal, an installment part). */
export interface SavedCardPayment extends CardPayment {
  merchant_id: number;
  /** When the charge was made: a processor looking for a payment it made for it looks from here on. */
  created_at: Date;
  /**
   * Whether the processor may have been asked for this charge before (a stale charge reclaimed after a
   * timeout or a crash): a processor whose idempotency keys expire looks for the payment it may already
   * have made before making one (docs/decisions.md S37).
   */
  asked_before: boolean;
}

// Form fields are bounded before any pattern runs, and the patterns cannot backtrack.
const MAX_CARD_INPUT = 32;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Card form rules: a Luhn-valid 12–19 digit number, a future MM/YY expiry, a 3–4 digit CVC. */
export function validateCard(input: CardInput | undefined, now: Date): ValidCard {
  const rawNumber = input?.number ?? '';
  const number = rawNumber.length <= MAX_CARD_INPUT ? rawNumber.replace(/[\s-]/g, '') : '';
  if (!/^\d{12,19}$/.test(number) || !luhn(number)) {
    throw new PlatformError('VALIDATION_FAILED', 'Your card number is invalid', { param: 'card.number' });
  }
  const expiry = input?.expiry ?? '';
  const m = expiry.length <= MAX_CARD_INPUT ? /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(expiry) : null;
  const month = m ? Number(m[1]) : 0;
  const year = m ? (m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2])) : 0;
  const endOfMonth = Date.UTC(year, month, 1); // first instant after the expiry month
  if (!m || month < 1 || month > 12 || endOfMonth <= now.getTime()) {
    throw new PlatformError('VALIDATION_FAILED', "Your card's expiry date is invalid or in the past", {
      param: 'card.expiry',
    });
  }
  const cvc = (input?.cvc ?? '').slice(0, MAX_CARD_INPUT).trim();
  if (!/^\d{3,4}$/.test(cvc)) {
    throw new PlatformError('VALIDATION_FAILED', "Your card's security code is invalid", { param: 'card.cvc' });
  }
  return { number, exp_month: month, exp_year: year, cvc, name: (input?.name ?? '').trim().slice(0, 100) };
}
