import type Stripe from 'stripe';
import { money } from '@ppay/kernel';
import type { LookUpAnswer } from '../ports';

/**
 * What a PaymentIntent read back from Stripe means for its charge (docs/decisions.md S20). Only the
 * states Stripe has made final settle it: `succeeded`, and `canceled` (nothing can be taken any more).
 * `requires_payment_method` after a decline is not final: Stripe lets the customer try another card on
 * the same PaymentIntent, so the charge stays pending (the `payment_intent.payment_failed` event and its
 * cancel-before-fail settle it, or the customer pays). `processing`, `requires_action`,
 * `requires_confirmation` and `requires_capture` (never used: we capture automatically) move on by
 * themselves or by the customer, so they are pending too.
 */
export function lookUpAnswerOf(intent: Stripe.PaymentIntent): LookUpAnswer {
  const amount = money(intent.amount, String(intent.currency ?? '').toUpperCase());
  switch (intent.status) {
    case 'succeeded':
      return { status: 'succeeded', amount };
    case 'canceled': {
      const error = intent.last_payment_error;
      // The decline that led to it when there was one, else why it was cancelled.
      const reason = error?.decline_code ?? error?.code ?? intent.cancellation_reason ?? 'canceled';
      return { status: 'failed', amount, failure_reason: reason };
    }
    default:
      return { status: 'pending' };
  }
}
