import type Stripe from 'stripe';
import { money, processorGroupOf } from '@ppay/kernel';
import { ourId, ourMetadata, type StripeEventMappers } from './stripe-event-mapping.adapter';
import { OFF_SESSION_MARKER } from './stripe-off-session.adapter';

function paymentOutcome(outcome: 'succeeded' | 'failed') {
  return (event: Stripe.Event) => {
    const intent = event.data.object as Stripe.PaymentIntent;
    const ours = ourMetadata(intent.metadata);
    const chargeId = ourId(ours?.meta.charge_id);
    const currency = String(intent.currency ?? '').toUpperCase();
    if (!ours || !chargeId || processorGroupOf(currency) !== 'card') return 'not_ours' as const;
    const error = intent.last_payment_error;
    return {
      kind: 'payment' as const,
      processor: 'stripe',
      event_id: event.id,
      type: event.type,
      merchant_id: ours.merchant_id,
      mode: ours.mode,
      outcome,
      charge_id: chargeId,
      processor_reference: intent.id,
      amount: money(intent.amount, currency),
      failure_reason: outcome === 'failed' ? (error?.decline_code ?? error?.code ?? 'declined') : null,
      ...(ours.meta[OFF_SESSION_MARKER] === 'true' ? { off_session: true } : {}),
    };
  };
}

/**
 * A PaymentIntent of one of our charges succeeded or failed (metadata `charge_id`, `merchant_id`, `mode`;
 * `off_session` on a saved card's, made without the customer: S39).
 */
export const PAYMENT_EVENTS: StripeEventMappers = {
  'payment_intent.succeeded': paymentOutcome('succeeded'),
  'payment_intent.payment_failed': paymentOutcome('failed'),
};
