import type Stripe from 'stripe';
import { DISPUTE_REASONS, money, processorGroupOf, type DisputeReason } from '@ppay/kernel';
import type { DisputeEvent } from '../processor-event';
import type { StripeEventMappers } from './stripe-event-mapping.adapter';

/**
 * Stripe's dispute statuses in ours. Inquiries (`warning_*`: the bank asks, no money moves) and
 * `prevented` ones never become disputes of ours; an inquiry that escalates arrives again as
 * `needs_response` (charge.dispute.updated, funds_withdrawn), which opens it then.
 */
const STATUSES: Readonly<Record<string, DisputeEvent['status']>> = {
  needs_response: 'needs_response',
  under_review: 'under_review',
  won: 'won',
  lost: 'lost',
};

/** Stripe's reasons we name too; the rest (bank_cannot_process, noncompliant, …) are `general`. */
function reasonOf(reason: string): DisputeReason {
  return (DISPUTE_REASONS as readonly string[]).includes(reason) ? (reason as DisputeReason) : 'general';
}

function disputeChange(change: DisputeEvent['change']) {
  return (event: Stripe.Event): DisputeEvent | 'not_ours' => {
    const dispute = event.data.object as Stripe.Dispute;
    const intent = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : dispute.payment_intent?.id;
    const currency = String(dispute.currency ?? '').toUpperCase();
    const status = Object.prototype.hasOwnProperty.call(STATUSES, dispute.status) ? STATUSES[dispute.status] : null;
    // A dispute of a payment without a PaymentIntent was never one of our charges (we make only those).
    if (!intent || !status || processorGroupOf(currency) !== 'card') return 'not_ours';
    const dueBy = dispute.evidence_details?.due_by;
    return {
      kind: 'dispute',
      processor: 'stripe',
      event_id: event.id,
      type: event.type,
      // Only the live connector talks to Stripe (a sk_test_ key in live mode included).
      mode: 'live',
      change,
      dispute_reference: String(dispute.id).slice(0, 64),
      payment_reference: intent.slice(0, 64),
      amount: money(dispute.amount, currency),
      reason: reasonOf(String(dispute.reason ?? '')),
      status,
      // Stripe's 0 or null: the network takes no response; our own window applies then.
      evidence_due_by: dueBy ? new Date(dueBy * 1_000).toISOString() : null,
    };
  };
}

/** A dispute of one of our PaymentIntents, found by its `payment_intent` (a dispute has no metadata of ours). */
export const DISPUTE_EVENTS: StripeEventMappers = {
  'charge.dispute.created': disputeChange('created'),
  'charge.dispute.updated': disputeChange('updated'),
  'charge.dispute.closed': disputeChange('closed'),
  'charge.dispute.funds_withdrawn': disputeChange('funds_withdrawn'),
  'charge.dispute.funds_reinstated': disputeChange('funds_reinstated'),
};
