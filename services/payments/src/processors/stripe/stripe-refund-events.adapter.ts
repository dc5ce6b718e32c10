import type Stripe from 'stripe';
import { money, processorGroupOf } from '@ppay/kernel';
import type { RefundEvent } from '../processor-event';
import { refundAnswerOf } from './stripe-payments.adapter';
import { ourId, ourMetadata, type StripeEventMappers } from './stripe-event-mapping.adapter';

/**
 * A Refund of ours changed at Stripe (metadata `refund_id`, `charge_id`, `merchant_id`, `mode`, set
 * when it was created). Every refund.* event carries the Refund object itself, with its own metadata
 * and status, so its status is read from the object rather than guessed from the event type: a
 * refund.updated may report pending, succeeded or canceled alike, and a delayed copy of an older
 * event says only what was true then (the applier never moves a final refund backwards).
 *
 * `charge.refunded` is not mapped: at the API version the connector pins its Charge carries no list
 * of refunds, one charge event may stand for several refunds, and refund.updated is sent for each of
 * them anyway. It is acknowledged as unhandled.
 */
function refundEvent(event: Stripe.Event): RefundEvent | 'not_ours' {
  const refund = event.data.object as Stripe.Refund;
  const ours = ourMetadata(refund.metadata);
  const refundId = ourId(ours?.meta.refund_id);
  const chargeId = ourId(ours?.meta.charge_id);
  const currency = String(refund.currency ?? '').toUpperCase();
  if (!ours || !refundId || !chargeId || processorGroupOf(currency) !== 'card') return 'not_ours';
  const answer = refundAnswerOf(refund);
  const paymentIntent = refund.payment_intent;
  return {
    kind: 'refund',
    processor: 'stripe',
    event_id: event.id,
    type: event.type,
    merchant_id: ours.merchant_id,
    mode: ours.mode,
    outcome: answer.status,
    refund_id: refundId,
    charge_id: chargeId,
    processor_reference: refund.id,
    payment_reference: typeof paymentIntent === 'string' ? paymentIntent : (paymentIntent?.id ?? null),
    amount: money(refund.amount, currency),
    failure_reason: answer.status === 'failed' ? answer.failure_reason : null,
  };
}

/** A refund of ours was created, changed or failed at Stripe. */
export const REFUND_EVENTS: StripeEventMappers = {
  'refund.created': refundEvent,
  'refund.updated': refundEvent,
  'refund.failed': refundEvent,
};
