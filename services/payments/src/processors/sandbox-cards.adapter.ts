import { createHash } from 'node:crypto';
import { PlatformError, type DisputeReason, type Mode } from '@ppay/kernel';
import {
  isProcessorSavedCard,
  type CardPayment,
  type CardResult,
  type CardSummary,
  type SandboxSavedCard,
  type SavedCard,
  type SavedCardPayment,
  type TestCard,
  type ValidCard,
} from './cards';
import type { CardProcessor } from './ports';

/**
 * Deterministic sandbox card outcomes for the hosted checkout (docs/decisions.md, payment sessions 13), the same
 * for every gateway group. Any future expiry and any CVC. Any other (Luhn-valid) number is declined:
 * sandbox never takes a real card.
 */
export const TEST_CARDS: readonly (TestCard & {
  decline_code?: string;
  message?: string;
  delayed?: boolean;
  /** Saved for a subscription or a plan, then declined on every off-session charge (renewal, later part) with this code. */
  renewal_decline_code?: string;
  /** The payment succeeds, then the cardholder's bank disputes it for this reason (disputes/). */
  dispute_reason?: DisputeReason;
})[] = [
  { number: '4242 4242 4242 4242', outcome: 'succeeds', description: 'Visa — payment succeeds' },
  { number: '5555 5555 5555 4444', outcome: 'succeeds', description: 'Mastercard — payment succeeds' },
  {
    number: '4000 0000 0000 0341',
    outcome: 'succeeds',
    description: 'Subscriptions and installments — first payment succeeds, later ones decline (card_declined)',
    renewal_decline_code: 'card_declined',
  },
  {
    number: '4000 0000 0000 0259',
    outcome: 'succeeds',
    description: 'Disputes — payment succeeds, then a fraudulent dispute opens',
    dispute_reason: 'fraudulent',
  },
  {
    number: '4000 0000 0000 2685',
    outcome: 'succeeds',
    description: 'Disputes — payment succeeds, then a product_not_received dispute opens',
    dispute_reason: 'product_not_received',
  },
  {
    number: '4000 0000 0000 0002',
    outcome: 'declines',
    description: 'Declined (card_declined)',
    decline_code: 'card_declined',
    message: 'Your card was declined.',
  },
  {
    number: '4000 0000 0000 9995',
    outcome: 'declines',
    description: 'Declined (insufficient_funds)',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  {
    number: '4000 0000 0000 0069',
    outcome: 'declines',
    description: 'Declined (expired_card)',
    decline_code: 'expired_card',
    message: 'Your card has expired.',
  },
  {
    number: '4000 0000 0000 0119',
    outcome: 'fails_after_delay',
    description: 'Processing error after ~2 s (processing_error)',
    decline_code: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
    delayed: true,
  },
];

const BY_NUMBER = new Map(TEST_CARDS.map((c) => [c.number.replace(/\s/g, ''), c]));

/**
 * The dispute a sandbox payment's card brings (null for any other card). Sandbox approves test cards
 * only, so an approved card's brand and last 4 name its test card.
 */
export function sandboxDisputeReason(card: CardSummary): DisputeReason | null {
  const test = TEST_CARDS.find(
    (c) => c.number.endsWith(card.last4) && brandOf(c.number.replace(/\s/g, '')) === card.brand,
  );
  return test?.dispute_reason ?? null;
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(506[01]|507[89]|6500)/.test(number)) return 'verve';
  return 'card';
}

export class SandboxCardProcessor implements CardProcessor {
  constructor(
    private readonly options: { processingDelayMs: number; sleep?: (ms: number) => Promise<void> } = {
      processingDelayMs: 2_000,
    },
  ) {}

  testCards(mode: Mode): TestCard[] {
    if (mode !== 'sandbox') return [];
    return TEST_CARDS.map(({ number, outcome, description }) => ({ number, outcome, description }));
  }

  async authorise(payment: CardPayment, card: ValidCard): Promise<CardResult> {
    if (payment.mode !== 'sandbox') {
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, { detail: 'live checkout is not enabled yet' });
    }
    const summary = { brand: brandOf(card.number), last4: card.number.slice(-4) };
    const test = BY_NUMBER.get(card.number);
    if (!test) {
      return {
        approved: false,
        decline_code: 'card_declined',
        message: 'Your card was declined. This is a sandbox checkout: use one of the test cards.',
        card: summary,
      };
    }
    if (test.delayed) {
      const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
      await sleep(this.options.processingDelayMs);
    }
    if (test.outcome === 'succeeds') {
      const digest = createHash('sha256').update(`${payment.group}:${payment.charge_id}`).digest('hex');
      return { approved: true, processor_reference: `sbx_${payment.group}_${digest.slice(0, 20)}`, card: summary };
    }
    return { approved: false, decline_code: test.decline_code!, message: test.message!, card: summary };
  }

  /** The token of a sandbox card: its brand, last 4 and off-session behaviour, never the number. */
  saveCard(card: ValidCard): SandboxSavedCard {
    const test = BY_NUMBER.get(card.number);
    const summary = { brand: brandOf(card.number), last4: card.number.slice(-4) };
    if (test?.renewal_decline_code) {
      return {
        ...summary,
        off_session: { approved: false, decline_code: test.renewal_decline_code, message: 'Your card was declined.' },
      };
    }
    return { ...summary, off_session: { approved: true } };
  }

  saveTestCard(cardNumber: string): SandboxSavedCard {
    const number = cardNumber.slice(0, 32).replace(/[\s-]/g, '');
    const test = BY_NUMBER.get(number);
    if (!test || test.outcome !== 'succeeds') {
      const payable = TEST_CARDS.filter((c) => c.outcome === 'succeeds').map((c) => c.number);
      throw new PlatformError('VALIDATION_FAILED', `card_number must be a test card that pays: ${payable.join(', ')}`, {
        param: 'card_number',
      });
    }
    return this.saveCard({ number, exp_month: 12, exp_year: 2099, cvc: '123', name: '' });
  }

  async chargeSaved(
    payment: SavedCardPayment,
    card: SavedCard,
    options: { customerPresent: boolean },
  ): Promise<CardResult> {
    // Live cards are charged by their own processor (card-routing.ts); this one never takes a real card.
    if (payment.mode !== 'sandbox' || isProcessorSavedCard(card)) {
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, {
        detail: 'the sandbox card processor charges sandbox cards only',
      });
    }
    const summary = { brand: card.brand, last4: card.last4 };
    // Only cards that paid on the page are saved, so a customer-present charge pays as it did there.
    if (!card.off_session.approved && !options.customerPresent) {
      const { decline_code, message } = card.off_session;
      return { approved: false, decline_code, message, card: summary };
    }
    const digest = createHash('sha256').update(`${payment.group}:${payment.charge_id}`).digest('hex');
    return { approved: true, processor_reference: `sbx_${payment.group}_${digest.slice(0, 20)}`, card: summary };
  }
}
