import { PlatformError, processorGroupOf } from '@ppay/kernel';
import type { CheckoutAuthorization, CheckoutIntent } from '../ports';
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
 * A hosted checkout session of ours as a Stripe Checkout Session (mode `payment`, cards only: the card
 * route, and a completed session is then always paid). Our ids go in its metadata and its
 * PaymentIntent's, so its events find their session; the PaymentIntent's metadata names no charge, so
 * its own `payment_intent.*` events are not taken for a charge's (the session's events settle it).
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
  // A physical product's session: its own lines, the shipping option and the address (S33).
  const goods = goodsSessionParams(intent.goods);
  const created = await call('checkout.sessions.create', () =>
    client.checkout.sessions.create(
      {
        mode: 'payment',
        payment_method_types: ['card'],
        line_items: [
          {
            price_data: {
              currency: intent.amount.currency.toLowerCase(),
              unit_amount: intent.amount.amount,
              product_data: { name: (intent.description || 'Payment').slice(0, 250) },
            },
            quantity: 1,
          },
        ],
        ...goods,
        customer_email: intent.customer_email || undefined,
        success_url: intent.success_url || undefined,
        cancel_url: intent.cancel_url || undefined,
        expires_at: expiresAt,
        client_reference_id: intent.session_id,
        metadata,
        payment_intent_data: { metadata },
      },
      { idempotencyKey: checkoutSessionKey(intent.session_id) },
    ),
  );
  if (!created.url) throw new PlatformError('INTERNAL', 'Stripe answered a Checkout Session without a URL');
  // Stripe honours the expiry asked for; what it answers is not read back (its test server answers a fixture).
  return { processor_reference: created.id, payment_url: created.url, expires_at: new Date(expiresAt * 1000) };
}
