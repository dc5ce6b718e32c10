import type Stripe from 'stripe';
import { PlatformError, processorGroupOf } from '@ppay/kernel';
import type { CheckoutAuthorization, CheckoutIntent, CheckoutPayment } from '../ports';
import type { StripeClient } from './stripe-client.adapter';
import { goodsSessionParams } from './stripe-goods-checkout.adapter';

/** The idempotency key of a session's Checkout Session: one per session of ours, however often asked. */
export const checkoutSessionKey = (sessionId: string) => `ppay_${sessionId}_checkout_session`;

/**
 * Stripe keeps a Checkout Session open 30 minutes to 24 hours after it is created. Ours may be shorter
 * (SESSION_TTL) and Stripe creates its own a moment after we timed ours, so the expiry sent is never
 * less than this after the request: a session of ours then lasts as long as Stripe's, a little longer
 * than asked at worst, never shorter.
 */
const MIN_LIFETIME_S = 30 * 60 + 60;
const MAX_LIFETIME_S = 24 * 60 * 60 - 60;

/**
 * A hosted checkout session of ours as a Stripe Checkout Session, cards only (the card route; a
 * completed session is then always paid). Mode `payment` takes the amount; to keep the card as well
 * (a subscription's first period, an installment's first part) its PaymentIntent is set up for
 * off-session use and Checkout makes a Customer to attach the card to; mode `setup` only keeps the card
 * (a free trial: nothing is charged now). Our ids go in the session's metadata and its PaymentIntent's
 * or SetupIntent's, so its events find their session; that metadata names no charge, so the
 * PaymentIntent's own `payment_intent.*` events are not taken for a charge's (the session's events
 * settle it).
 */
export async function createCheckoutSession(
  client: StripeClient,
  intent: CheckoutIntent,
  call: <T>(operation: string, run: () => Promise<T>) => Promise<T>,
  now: () => Date,
): Promise<CheckoutAuthorization> {
  if (intent.mode !== 'live' || processorGroupOf(intent.amount.currency) !== 'card') {
    throw new PlatformError(
      'INTERNAL',
      `the Stripe card gateway cannot take a ${intent.mode} ${intent.amount.currency} session`,
    );
  }
  const nowS = Math.floor(now().getTime() / 1000);
  const expiresAt = Math.min(
    Math.max(Math.ceil(intent.expires_at.getTime() / 1000), nowS + MIN_LIFETIME_S),
    nowS + MAX_LIFETIME_S,
  );
  const metadata = { session_id: intent.session_id, merchant_id: String(intent.merchant_id), mode: intent.mode };
  const currency = intent.amount.currency.toLowerCase();
  const common = {
    payment_method_types: ['card' as const],
    customer_email: intent.customer_email || undefined,
    success_url: intent.success_url || undefined,
    cancel_url: intent.cancel_url || undefined,
    expires_at: expiresAt,
    client_reference_id: intent.session_id,
    metadata,
  };
  const params: Stripe.Checkout.SessionCreateParams =
    intent.purpose === 'save'
      ? { ...common, mode: 'setup', currency, customer_creation: 'always', setup_intent_data: { metadata } }
      : {
          ...common,
          mode: 'payment',
          line_items: [
            {
              price_data: {
                currency,
                unit_amount: intent.amount.amount,
                product_data: { name: (intent.description || 'Payment').slice(0, 250) },
              },
              quantity: 1,
            },
          ],
          // A physical product's session: its own lines, the shipping option and the address (S33).
          ...goodsSessionParams(intent.goods),
          ...(intent.purpose === 'pay_and_save'
            ? {
                customer_creation: 'always' as const,
                payment_intent_data: { metadata, setup_future_usage: 'off_session' as const },
              }
            : { payment_intent_data: { metadata } }),
        };
  const created = await call('checkout.sessions.create', () =>
    client.checkout.sessions.create(params, { idempotencyKey: checkoutSessionKey(intent.session_id) }),
  );
  if (!created.url) throw new PlatformError('INTERNAL', 'Stripe answered a Checkout Session without a URL');
  // Stripe honours the expiry asked for; what it answers is not read back (its test server answers a fixture).
  return { processor_reference: created.id, payment_url: created.url, expires_at: new Date(expiresAt * 1000) };
}

/**
 * A completed Checkout Session read back with the card it took: its PaymentIntent's (or, for a
 * card-only session, its SetupIntent's) payment method, and the Customer that method is attached to
 * when it was kept for off-session charges.
 */
export async function checkoutPaymentOf(
  client: StripeClient,
  sessionReference: string,
  call: <T>(operation: string, run: () => Promise<T>) => Promise<T>,
): Promise<CheckoutPayment> {
  const session = await call('checkout.sessions.retrieve', () =>
    client.checkout.sessions.retrieve(sessionReference, {
      expand: ['payment_intent.payment_method', 'setup_intent.payment_method'],
    }),
  );
  const intent = session.mode === 'setup' ? session.setup_intent : session.payment_intent;
  if (!intent || typeof intent === 'string') {
    throw new PlatformError(
      'INTERNAL',
      `Stripe answered Checkout Session ${session.id} without its ${session.mode} intent`,
    );
  }
  const method = intent.payment_method;
  if (!method || typeof method === 'string' || !method.card) {
    throw new PlatformError('INTERNAL', `Stripe answered Checkout Session ${session.id} without the card it took`);
  }
  const card = { brand: method.card.brand, last4: method.card.last4 };
  const kept =
    session.mode === 'setup' || (intent.object === 'payment_intent' && intent.setup_future_usage === 'off_session');
  const customer = idOf(session.customer) ?? idOf(method.customer);
  if (kept && !customer) {
    throw new PlatformError('INTERNAL', `Stripe kept the card of Checkout Session ${session.id} on no Customer`);
  }
  return {
    payment_reference: intent.object === 'payment_intent' ? intent.id : null,
    card,
    saved_card: kept
      ? { ...card, processor: 'stripe', customer_reference: customer!, method_reference: method.id }
      : null,
  };
}

const idOf = (ref: string | { id: string } | null | undefined) => (typeof ref === 'string' ? ref : ref?.id) ?? null;
