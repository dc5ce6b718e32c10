import { createHash } from 'node:crypto';
import { rejectionOf } from '../errors.test-util';
import {
  completedCheckoutSession,
  retrievedSessionId,
  scriptedStripe,
  SECRET,
  stripeEventJson,
} from '../processors/stripe/stripe.test-util';
import { VISA } from './checkout.test-util';
import { liveCheckoutSetup } from './live-checkout.test-util';
import type { SessionRequest } from './session-request';

/**
 * Live hosted checkout on Stripe (docs/decisions.md, S25–S28, S40): a one-time live session is a Stripe
 * Checkout Session, paid on Stripe's page and closed by its signed events, the card it took read back.
 * Physical goods: live-goods.test.ts; subscriptions and installments: live-recurring-checkout.test.ts.
 */
const MASTERCARD = { brand: 'mastercard', last4: '4444' };
const CS = 'cs_test_a1B2c3';
const STRIPE_URL = `https://checkout.stripe.com/c/pay/${CS}`;
const ONE_TIME: SessionRequest = {
  amount: 2_500,
  currency: 'USD',
  product_name: 'Sourdough',
  customer: { email: 'ada@example.com' },
  success_url: 'https://shop.example/thanks',
  cancel_url: 'https://shop.example/cart',
};

let stripe: Awaited<ReturnType<typeof scriptedStripe>>;
beforeEach(async () => {
  stripe = await scriptedStripe((req) => {
    const read = retrievedSessionId(req);
    if (read) return completedCheckoutSession({ id: read, intent: 'pi_checkout_1', card: MASTERCARD });
    return req.url === '/v1/checkout/sessions'
      ? { status: 200, json: { id: CS, object: 'checkout.session', url: STRIPE_URL } }
      : { status: 404, json: { error: { type: 'invalid_request_error', message: 'no such route' } } };
  });
});
afterEach(() => stripe.close());

const setup = () => liveCheckoutSetup(stripe);

function checkoutEvent(id: string, type: string, sessionId: string, object: Record<string, unknown> = {}) {
  return stripeEventJson(id, type, {
    id: CS,
    object: 'checkout.session',
    amount_total: 2_500,
    currency: 'usd',
    payment_status: type === 'checkout.session.completed' ? 'paid' : 'unpaid',
    payment_intent: type === 'checkout.session.completed' ? 'pi_checkout_1' : null,
    client_reference_id: sessionId,
    metadata: { session_id: sessionId, merchant_id: '1000', mode: 'live' },
    ...object,
  });
}

describe('live hosted checkout on Stripe', () => {
  it('a one-time live session is a Stripe Checkout Session: its id, its URL, our expiry, one per session', async () => {
    const t = setup();
    const { session } = await t.service.create(1000, 'live', ONE_TIME);
    expect(stripe.seen).toHaveLength(1);
    const [request] = stripe.seen;
    expect([request!.method, request!.path]).toEqual(['POST', '/v1/checkout/sessions']);
    expect(request!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(request!.headers['idempotency-key']).toBe(`ppay_${session.session_id}_checkout_session`);
    const sent = Object.fromEntries(new URLSearchParams(request!.body));
    // Our 30 minutes are below Stripe's minimum once its clock runs on: a minute more is asked for.
    const expiresAt = Date.parse('2026-11-01T10:31:00Z') / 1000;
    expect(sent).toEqual({
      mode: 'payment',
      'payment_method_types[0]': 'card',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': String(session.fee_details.total.amount),
      'line_items[0][price_data][product_data][name]': 'Sourdough',
      'line_items[0][quantity]': '1',
      customer_email: 'ada@example.com',
      success_url: `https://shop.example/thanks?session_id=${session.session_id}`,
      cancel_url: `https://shop.example/cart?session_id=${session.session_id}`,
      expires_at: String(expiresAt),
      client_reference_id: session.session_id,
      'metadata[session_id]': session.session_id,
      'metadata[merchant_id]': '1000',
      'metadata[mode]': 'live',
      'payment_intent_data[metadata][session_id]': session.session_id,
      'payment_intent_data[metadata][merchant_id]': '1000',
      'payment_intent_data[metadata][mode]': 'live',
    });
    expect(session).toMatchObject({
      mode: 'live',
      status: 'pending',
      gateway_session_id: CS,
      payment_url: STRIPE_URL,
      payment_gateway: 'card_gateway',
      expires_at: new Date(expiresAt * 1000),
    });
    expect(await t.sessions.findById(session.session_id)).toMatchObject({
      gateway_session_id: CS,
      payment_url: STRIPE_URL,
    });
    // Our page never takes a card for it.
    const refused = await rejectionOf(t.service.pay(session.session_id, VISA));
    expect([refused.code, refused.detail]).toEqual([
      'GATEWAY_NOT_CONFIGURED',
      "a live session is paid on the processor's page (payment_url), not here",
    ]);
    expect(t.cards.payments).toEqual([]);
  });

  it('a live create repeated with its Idempotency-Key answers its session without asking Stripe again', async () => {
    const t = setup();
    const first = await t.service.create(1000, 'live', { ...ONE_TIME, idempotency_key: 'order-42' });
    const again = await t.service.create(1000, 'live', { ...ONE_TIME, idempotency_key: ' order-42 ' });
    expect([first.replayed, again.replayed]).toEqual([false, true]);
    expect(again.session.session_id).toBe(first.session.session_id);
    expect(stripe.seen).toHaveLength(1);
    // Another key is another session.
    await t.service.create(1000, 'live', { ...ONE_TIME, idempotency_key: 'order-43' });
    expect([stripe.seen.length, t.sessions.docs.size]).toEqual([2, 2]);
  });

  it('a sandbox session is as it was: its derived reference, our page, our expiry, no processor called', async () => {
    const t = setup();
    const { session } = await t.service.create(1000, 'sandbox', ONE_TIME);
    const digest = createHash('sha256').update(`card:${session.session_id}`).digest('hex');
    expect(session).toMatchObject({
      gateway_session_id: `sbx_card_${digest.slice(0, 20)}`,
      payment_url: null,
      expires_at: new Date('2026-11-01T10:30:00Z'),
    });
    expect(stripe.seen).toEqual([]);
    expect((await t.service.pay(session.session_id, VISA)).result).toBe('succeeded');
  });

  it('a signed checkout.session.completed completes the session as a sandbox success does, once', async () => {
    const t = setup();
    const { session } = await t.service.create(1000, 'live', ONE_TIME);
    const id = session.session_id;
    t.advance(60_000);
    expect(await t.deliver(checkoutEvent('evt_done_1', 'checkout.session.completed', id))).toBe('applied');
    const done = (await t.sessions.findById(id))!;
    expect(done).toMatchObject({
      status: 'completed',
      completed_at: new Date('2026-11-01T10:01:00Z'),
      payment: { status: 'succeeded', processor_reference: 'pi_checkout_1', amount: session.fee_details.base },
    });
    // The card is what Stripe says the customer paid with, read back (the event does not say).
    expect(done.payment!.card).toEqual(MASTERCARD);
    expect(stripe.seen.at(-1)!.path).toBe(
      `/v1/checkout/sessions/${CS}?expand[0]=payment_intent.payment_method&expand[1]=setup_intent.payment_method`,
    );
    expect(t.sessions.events).toHaveLength(1);
    expect(t.sessions.events[0]).toMatchObject({
      subject: 'payments.payment.succeeded',
      merchant_id: 1000,
      mode: 'live',
      data: { session_id: id, status: 'succeeded', payment_type: 'one_time' },
    });
    // Its charge is copied, so it is read, refunded and disputed like any charge.
    expect(await t.charges.findForMerchant(1000, 'live', done.payment!.charge_id)).toMatchObject({
      status: 'succeeded',
      processor_reference: 'pi_checkout_1',
      reference: id,
    });
    // Stripe delivers again (a new event id): no second payment, no second event; an expiry after it is stale.
    expect(await t.deliver(checkoutEvent('evt_done_2', 'checkout.session.completed', id))).toBe('duplicate');
    expect(await t.deliver(checkoutEvent('evt_exp_1', 'checkout.session.expired', id))).toBe('stale');
    expect(t.sessions.events).toHaveLength(1);
    expect((await t.sessions.findById(id))!.status).toBe('completed');
  });

  it('an amount, currency or Stripe session that is not the session’s is a mismatch, never applied', async () => {
    const t = setup();
    const { session } = await t.service.create(1000, 'live', ONE_TIME);
    const id = session.session_id;
    const total = session.fee_details.total.amount;
    const completed = (n: number, over: Record<string, unknown>) =>
      t.deliver(checkoutEvent(`evt_bad_${n}`, 'checkout.session.completed', id, over));
    expect(await completed(1, { amount_total: total - 1 })).toBe('mismatch');
    expect(await completed(2, { currency: 'eur' })).toBe('mismatch');
    expect(await completed(3, { id: 'cs_test_other' })).toBe('mismatch');
    expect(t.events.docs.get('stripe:evt_bad_1')!.note).toBe(`event ${total - 1} USD, session ${total} USD`);
    expect((await t.sessions.findById(id))!.status).toBe('pending');
    expect(t.sessions.events).toEqual([]);
  });

  it('checkout.session.expired expires the session; a payment Stripe took before its expiry still completes it', async () => {
    const t = setup();
    const { session } = await t.service.create(1000, 'live', ONE_TIME);
    const id = session.session_id;
    expect(await t.deliver(checkoutEvent('evt_exp_1', 'checkout.session.expired', id))).toBe('applied');
    expect((await t.sessions.findById(id))!.status).toBe('expired');
    expect(await t.deliver(checkoutEvent('evt_exp_2', 'checkout.session.expired', id))).toBe('duplicate');
    // Our sweeper can expire a session by our clock while Stripe is still taking its payment.
    expect(await t.deliver(checkoutEvent('evt_done_1', 'checkout.session.completed', id))).toBe('applied');
    expect((await t.sessions.findById(id))!.status).toBe('completed');
    expect(t.sessions.events.map((e) => e.subject)).toEqual(['payments.payment.succeeded']);
  });

  it('an event for a session not stored yet waits; the Checkout PaymentIntent’s own events are not a charge’s', async () => {
    const t = setup();
    expect(await t.deliver(checkoutEvent('evt_early', 'checkout.session.completed', 'cs_not_yet'))).toBe('received');
    expect(t.events.docs.get('stripe:evt_early')!.attempts).toBe(1);
    const intentEvent = JSON.stringify({
      id: 'evt_pi_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: {
        object: {
          id: 'pi_checkout_1',
          object: 'payment_intent',
          amount: 2_500,
          currency: 'usd',
          metadata: { session_id: 'cs_x', merchant_id: '1000', mode: 'live' },
        },
      },
    });
    expect(await t.deliver(intentEvent)).toBe('not_ours');
    // A completed session not paid (an asynchronous method) is not acted on.
    const unpaid = checkoutEvent('evt_unpaid', 'checkout.session.completed', 'cs_x', { payment_status: 'unpaid' });
    expect(await t.deliver(unpaid)).toBe('unhandled_type');
  });
});
