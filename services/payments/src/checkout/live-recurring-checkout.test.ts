import { SUBJECTS } from '@ppay/kernel';
import {
  completedCheckoutSession,
  retrievedSessionId,
  scriptedStripe,
  stripeError,
} from '../processors/stripe/stripe.test-util';
import { INSTALLMENTS, SUBSCRIPTION } from './checkout.test-util';
import { checkoutEventJson, liveCheckoutSetup } from './live-checkout.test-util';
import type { SessionRecord } from './session';
import type { SessionRequest } from './session-request';

/**
 * Live subscription and installment sessions on Stripe (docs/decisions.md, S40–S42): the Checkout
 * Session keeps the card at Stripe for the off-session charges that follow (a free trial only keeps
 * it), and its completion saves that card as a payment method before the session completes.
 */
const MONTHLY: SessionRequest = { ...SUBSCRIPTION, amount: 2_500, currency: 'USD' };
const TRIAL: SessionRequest = { ...MONTHLY, trial_days: 14 };
const IN_THREE: SessionRequest = { ...INSTALLMENTS, amount: 3_000, currency: 'USD' };

let stripe: Awaited<ReturnType<typeof scriptedStripe>>;
/** What reading a Checkout Session back answers (by its id); default: paid, card kept. */
let readBack: (id: string) => { status: number; json?: unknown };
beforeEach(async () => {
  readBack = (id) => completedCheckoutSession({ id, intent: `pi_${id}`, saved: true, customer: 'cus_ada' });
  stripe = await scriptedStripe((req, body) => {
    const read = retrievedSessionId(req);
    if (read) return readBack(read);
    if (req.url !== '/v1/checkout/sessions') return { status: 404, json: { error: { type: 'invalid_request_error' } } };
    const id = `cs_test_${new URLSearchParams(body).get('metadata[session_id]')}`;
    return { status: 200, json: { id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}` } };
  });
});
afterEach(() => stripe.close());

const sent = () => Object.fromEntries(new URLSearchParams(stripe.seen.find((r) => r.method === 'POST')!.body));
const completed = (id: string, s: SessionRecord, object: Record<string, unknown> = {}) =>
  checkoutEventJson(id, 'checkout.session.completed', s, { payment_intent: `pi_${s.gateway_session_id}`, ...object });

describe('live subscription and installment sessions on Stripe', () => {
  it('a subscription session is paid on Stripe with the card kept for off-session charges', async () => {
    const t = liveCheckoutSetup(stripe);
    const { session } = await t.service.create(1000, 'live', MONTHLY);
    expect(sent()).toMatchObject({
      mode: 'payment',
      customer_creation: 'always',
      'payment_intent_data[setup_future_usage]': 'off_session',
      'payment_intent_data[metadata][session_id]': session.session_id,
      'line_items[0][price_data][unit_amount]': String(session.fee_details.total.amount),
    });
    // Subscriptions hears of the pending subscription at once, as in sandbox.
    expect(t.sessions.events.map((e) => e.subject)).toEqual([SUBJECTS.subscriptionCheckoutCreated]);
  });

  it('its completion saves the card Stripe kept, then completes the session with its payment, once', async () => {
    const t = liveCheckoutSetup(stripe);
    const { session } = await t.service.create(1000, 'live', MONTHLY);
    const pi = `pi_${session.gateway_session_id}`;
    expect(await t.deliver(completed('evt_sub_1', session))).toBe('applied');
    const [method, ...others] = [...t.methods.docs.values()];
    expect(others).toEqual([]);
    expect(method).toMatchObject({
      merchant_id: 1000,
      mode: 'live',
      origin_session_id: session.session_id,
      customer_email: 'ada@example.com',
      card: {
        processor: 'stripe',
        customer_reference: 'cus_ada',
        method_reference: `pm_${pi}`,
        brand: 'visa',
        last4: '4242',
      },
    });
    const done = (await t.sessions.findById(session.session_id))!;
    expect(done).toMatchObject({ status: 'completed', payment: { processor_reference: pi, card: { last4: '4242' } } });
    const [, succeeded, subscribed] = t.sessions.events;
    expect(t.sessions.events.map((e) => e.subject)).toEqual([
      SUBJECTS.subscriptionCheckoutCreated,
      SUBJECTS.paymentSucceeded,
      SUBJECTS.subscriptionCheckoutCompleted,
    ]);
    expect(succeeded!.data).toMatchObject({ payment_type: 'subscription', status: 'succeeded' });
    expect(subscribed!.data).toMatchObject({
      session_id: session.session_id,
      payment_method_id: method!.payment_method_id,
      card: { brand: 'visa', last4: '4242' },
      charge_id: done.payment!.charge_id,
    });
    // Stripe delivers again: no second method, no second payment.
    expect(await t.deliver(completed('evt_sub_2', session))).toBe('duplicate');
    expect([t.methods.docs.size, t.sessions.events.length]).toEqual([1, 3]);
  });

  it('a free trial only keeps the card: a setup session, no payment, the subscription completed with its method', async () => {
    const t = liveCheckoutSetup(stripe);
    readBack = (id) => completedCheckoutSession({ id, intent: 'seti_trial_1', mode: 'setup', customer: 'cus_ada' });
    const { session } = await t.service.create(1000, 'live', TRIAL);
    const form = sent();
    expect(form).toMatchObject({
      mode: 'setup',
      currency: 'usd',
      customer_creation: 'always',
      'setup_intent_data[metadata][session_id]': session.session_id,
    });
    expect(Object.keys(form).filter((k) => k.startsWith('line_items') || k.startsWith('payment_intent_data'))).toEqual(
      [],
    );
    const event = completed('evt_trial_1', session, {
      mode: 'setup',
      amount_total: null,
      payment_status: 'no_payment_required',
      payment_intent: null,
      setup_intent: 'seti_trial_1',
    });
    expect(await t.deliver(event)).toBe('applied');
    const done = (await t.sessions.findById(session.session_id))!;
    expect([done.status, done.payment]).toEqual(['completed', null]);
    expect(t.sessions.events.map((e) => e.subject)).toEqual([
      SUBJECTS.subscriptionCheckoutCreated,
      SUBJECTS.subscriptionCheckoutCompleted,
    ]);
    expect(t.sessions.events[1]!.data).toMatchObject({ charge_id: null, card: { last4: '4242' } });
    expect([...t.methods.docs.values()][0]!.card).toMatchObject({ method_reference: 'pm_seti_trial_1' });
    // A trial's session that says it took money is not the session's.
    const other = (await t.service.create(1000, 'live', TRIAL)).session;
    expect(await t.deliver(completed('evt_trial_2', other))).toBe('mismatch');
  });

  it('an installment session pays its first part on Stripe and keeps the card for the others', async () => {
    const t = liveCheckoutSetup(stripe);
    const { session } = await t.service.create(1000, 'live', IN_THREE);
    const first = session.installments!.parts[0]!.total;
    expect(sent()).toMatchObject({
      'payment_intent_data[setup_future_usage]': 'off_session',
      'line_items[0][price_data][unit_amount]': String(first.amount),
    });
    expect(await t.deliver(completed('evt_plan_1', session))).toBe('applied');
    const method = [...t.methods.docs.values()][0]!;
    const planned = t.sessions.events.find((e) => e.subject === SUBJECTS.installmentCheckoutCompleted)!;
    expect(planned.data).toMatchObject({
      plan_id: session.installments!.plan_id,
      count: 3,
      payment_method_id: method.payment_method_id,
      charge_id: (await t.sessions.findById(session.session_id))!.payment!.charge_id,
    });
  });

  it('Stripe keeping no card is a mismatch; Stripe not answering the read-back is retried, then applied', async () => {
    const t = liveCheckoutSetup(stripe);
    readBack = (id) => completedCheckoutSession({ id, intent: `pi_${id}`, saved: false });
    const kept = (await t.service.create(1000, 'live', MONTHLY)).session;
    expect(await t.deliver(completed('evt_nocard', kept))).toBe('mismatch');
    expect(t.events.docs.get('stripe:evt_nocard')!.note).toBe('the processor kept no card for off-session charges');
    expect((await t.sessions.findById(kept.session_id))!.status).toBe('pending');

    readBack = () => stripeError(503, 'api_error');
    const later = (await t.service.create(1000, 'live', MONTHLY)).session;
    expect(await t.deliver(completed('evt_down', later))).toBe('received');
    expect(t.events.docs.get('stripe:evt_down')!.attempts).toBe(1);
    expect(t.methods.docs.size).toBe(0);
    readBack = (id) => completedCheckoutSession({ id, intent: `pi_${id}`, saved: true });
    t.advance(10_000);
    await t.inbox.applyDue();
    expect(t.events.docs.get('stripe:evt_down')!.status).toBe('applied');
    expect((await t.sessions.findById(later.session_id))!.status).toBe('completed');
  });
});
