import type Stripe from 'stripe';
import { money, processorGroupOf } from '@ppay/kernel';
import type { CheckoutEvent, ProcessorAddress } from '../processor-event';
import { ourId, ourMetadata, type StripeEventMappers } from './stripe-event-mapping.adapter';

function checkoutOutcome(outcome: CheckoutEvent['outcome']) {
  return (event: Stripe.Event) => {
    const session = event.data.object as Stripe.Checkout.Session;
    const ours = ourMetadata(session.metadata);
    const sessionId = ourId(ours?.meta.session_id);
    const currency = String(session.currency ?? '').toUpperCase();
    if (!ours || !sessionId || processorGroupOf(currency) !== 'card') return 'not_ours' as const;
    // Our sessions take cards only, so a completed one is paid, or (mode `setup`, a free trial) kept the
    // card without a payment; anything else is not a state our sessions reach.
    const finished =
      session.payment_status === 'paid' ||
      (session.mode === 'setup' && session.payment_status === 'no_payment_required');
    if (outcome === 'completed' && !finished) return 'unhandled' as const;
    const intent = session.payment_intent;
    const paid = outcome === 'completed' && session.payment_status === 'paid';
    return {
      kind: 'checkout' as const,
      processor: 'stripe',
      event_id: event.id,
      type: event.type,
      merchant_id: ours.merchant_id,
      mode: ours.mode,
      outcome,
      session_id: sessionId,
      processor_reference: session.id,
      payment_reference: paid ? ((typeof intent === 'string' ? intent : intent?.id) ?? null) : null,
      amount: paid && session.amount_total !== null ? money(session.amount_total, currency) : null,
      shipping: paid ? shippingOf(session) : null,
    };
  };
}

/**
 * Longer than any field of an address we keep (at most 200 characters), so a longer one is still refused
 * by the applier's checks rather than cut to fit; it bounds what the inbox stores.
 */
const FIELD_BOUND = 500;
const clip = (v: string | null | undefined) => (typeof v === 'string' ? v.slice(0, FIELD_BOUND) : null);

/** The address Stripe's page collected (`shipping_address_collection`), with the phone if it asked for one. */
function shippingOf(session: Stripe.Checkout.Session): ProcessorAddress | null {
  const details = session.collected_information?.shipping_details;
  if (!details) return null;
  const a = details.address;
  return {
    name: clip(details.name),
    line1: clip(a?.line1),
    line2: clip(a?.line2),
    city: clip(a?.city),
    state: clip(a?.state),
    postal_code: clip(a?.postal_code),
    country: clip(a?.country),
    phone: clip(session.customer_details?.phone),
  };
}

/**
 * A Checkout Session of one of our sessions was paid or expired (metadata `session_id`, `merchant_id`,
 * `mode`). `checkout.session.async_payment_succeeded` / `_failed` are not handled: our sessions take
 * cards only, which are never paid asynchronously (docs/decisions.md, S27).
 */
export const CHECKOUT_EVENTS: StripeEventMappers = {
  'checkout.session.completed': checkoutOutcome('completed'),
  'checkout.session.expired': checkoutOutcome('expired'),
};
