import Stripe from 'stripe';
import { stripeClient } from '@ppay/stripe-support';
import { ProcessorEventInbox } from '../processors/processor-events';
import { MemoryProcessorEvents } from '../processors/processor-events.test-util';
import { StaticProcessorRegistry } from '../processors/sandbox-processors.adapter';
import { StripeEventVerifier } from '../processors/stripe/stripe-events.adapter';
import { StripeCardGateway } from '../processors/stripe/stripe-payments.adapter';
import { stripeEventJson, type scriptedStripe } from '../processors/stripe/stripe.test-util';
import { CheckoutEventApplier } from './checkout-events';
import { checkoutSetup } from './checkout.test-util';

/**
 * Live hosted checkout over in-memory ports with the real Stripe connector against a scripted Stripe:
 * sessions are made through the library, and Stripe's events are signed, verified, stored in the inbox
 * and applied, as in production.
 */
export const WEBHOOK_SECRET = 'whsec_unit_checkout00';

export function liveCheckoutSetup(stripe: Awaited<ReturnType<typeof scriptedStripe>>) {
  let clock = () => new Date();
  const settings = stripe.settings();
  const live = new StripeCardGateway(
    stripeClient(settings),
    settings,
    { call: () => undefined, authFailure: () => undefined },
    () => clock(),
  );
  const processors = new StaticProcessorRegistry({
    timeoutMs: 2_000,
    resetTimeoutMs: 1_000,
    cardPublishableKey: 'pk_test_sandbox',
    live: { card: live },
  });
  const t = checkoutSetup({ processors });
  clock = t.now;
  const events = new MemoryProcessorEvents();
  const inbox = new ProcessorEventInbox(
    {
      events,
      appliers: {
        payment: { apply: () => Promise.reject(new Error('no payment events here')) },
        refund: { apply: () => Promise.reject(new Error('no refund events here')) },
        dispute: { apply: () => Promise.reject(new Error('no dispute events here')) },
        checkout: new CheckoutEventApplier({ sessions: t.sessions, checkout: t.processorCheckout, goods: t.liveGoods }),
        connected_account: { apply: () => Promise.reject(new Error('no connected account events here')) },
        payout_transfer: { apply: () => Promise.reject(new Error('no payout transfer events here')) },
      },
    },
    { unmatchedAfterMs: 60_000, retryMs: 1_000, now: t.now },
  );
  const verifier = new StripeEventVerifier(Stripe.webhooks, [WEBHOOK_SECRET]);
  /** Posts a signed Stripe event to the inbox and applies it; answers the inbox record's status. */
  const deliver = async (payload: string) => {
    const verified = verifier.verify(Buffer.from(payload), signed(payload));
    if (verified.kind !== 'event') return verified.why;
    await inbox.receive(verified.event);
    await inbox.applyDue();
    return events.docs.get(`stripe:${verified.event.event_id}`)!.status;
  };
  return { ...t, events, inbox, deliver };
}

const signed = (payload: string) => Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });

/** A `checkout.session.*` event of one of our sessions, its Checkout Session laid over with `object`. */
export function checkoutEventJson(
  id: string,
  type: 'checkout.session.completed' | 'checkout.session.expired',
  session: { session_id: string; gateway_session_id: string; fee_details: { total: { amount: number } } },
  object: Record<string, unknown> = {},
): string {
  const paid = type === 'checkout.session.completed';
  return stripeEventJson(id, type, {
    id: session.gateway_session_id,
    object: 'checkout.session',
    amount_total: session.fee_details.total.amount,
    currency: 'usd',
    payment_status: paid ? 'paid' : 'unpaid',
    payment_intent: paid ? `pi_${session.session_id}` : null,
    client_reference_id: session.session_id,
    metadata: { session_id: session.session_id, merchant_id: '1000', mode: 'live' },
    ...object,
  });
}
