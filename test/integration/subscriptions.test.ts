import { type EventEnvelope } from '@ppay/kernel';
import { connectNats, createLogger, type NatsContext } from '@ppay/runtime';
import { testInfraUrls } from '../support/infra';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

type Merchant = Awaited<ReturnType<TestPlatform['merchant']>>;

/** Issue 13 through the real stack: checkout → subscription, the sandbox clock, dunning, cancel, list (spec 4.5, 4.6). */
describe('subscriptions', () => {
  let t: TestPlatform;
  let m: Merchant;
  let nats: NatsContext;
  const api = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const sandboxSubscription = async (key: string, extra: Record<string, unknown> = {}) => {
    const res = await api(key, 'POST', '/sandbox/subscriptions', {
      amount: 500_000,
      currency: 'NGN',
      product_name: 'Bread club',
      customer: { email: 'ada@example.com', first_name: 'Ada' },
      subscription_frequency_key: 'monthly',
      card_number: '4242 4242 4242 4242',
      ...extra,
    });
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    return res.body.data;
  };
  const advance = (key: string, id: string, to: string) =>
    api(key, 'POST', `/sandbox/subscriptions/${id}/advance`, { to });
  /** Payments' charges for one subscription (renewals carry its id in their reference). */
  const chargesOf = async (merchantId: number, subscriptionId: string) =>
    (await t.db('payments'))
      .collection('charges')
      .find({ merchant_id: merchantId, reference_key: { $regex: `^sub:${subscriptionId}:` } })
      .toArray();
  const subjectsOf = async (subscriptionId: string) => {
    const seen: string[] = [];
    const consumer = await nats.js.consumers.get('SUBSCRIPTIONS');
    const messages = await consumer.fetch({ max_messages: 1000, expires: 1000 });
    for await (const msg of messages) {
      const e = msg.json<EventEnvelope>();
      if ((e.data as { subscription_id?: string }).subscription_id === subscriptionId) seen.push(e.subject);
      if (msg.info.pending === 0) break;
    }
    return seen.map((s) => s.replace('subscriptions.subscription.', ''));
  };

  beforeAll(async () => {
    t = await startTestPlatform('subscriptions');
    m = await t.merchant({ country: 'NG', currency: 'NGN' });
    nats = await connectNats(
      testInfraUrls().natsUrl,
      'subscriptions-test',
      createLogger('subscriptions-test', 'silent'),
    );
  });
  afterAll(async () => {
    await nats?.nc.drain();
    await t?.stop();
  });

  it('a subscription checkout: pending at creation, active with the saved card once paid, payment_type subscription', async () => {
    const created = await api(m.api_key, 'POST', '/payments/sessions', {
      amount: 250_000,
      currency: 'NGN',
      product_name: 'Coffee club',
      customer: { email: 'obi@example.com' },
      subscription_frequency_key: 'quarterly',
    });
    expect(created.body.data).toMatchObject({ payment_type: 'subscription' });
    const sessionId = created.body.data.session_id as string;
    const find = async () =>
      (await api(m.api_key, 'GET', '/subscriptions?limit=100')).body.data.subscriptions.find(
        (s: { checkout_session_id: string }) => s.checkout_session_id === sessionId,
      );
    expect(await eventually(async () => (await find())?.status === 'pending', 10_000)).toBe(true);
    const pay = await fetch(`${t.url}/checkout/${sessionId}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card_number: '4000000000000341', expiry: '12/34', cvc: '123' }),
      redirect: 'manual',
    });
    expect(pay.status).toBeLessThan(400);
    expect(await eventually(async () => (await find())?.status === 'active', 10_000)).toBe(true);
    const sub = await find();
    expect(sub).toMatchObject({
      product_id: null,
      product_name: 'Coffee club',
      customer_email: 'obi@example.com',
      amount: 250_000,
      currency: 'NGN',
      frequency: 'quarterly',
      payment_status: 'paid',
      attempts_left: 4,
    });
    expect(Date.parse(sub.next_payment_date) - Date.parse(sub.current_period.start)).toBeGreaterThan(88 * 86_400_000);
    const methods = await (
      await t.db('payments')
    )
      .collection('payment_methods')
      .find({ merchant_id: m.merchant_id })
      .toArray();
    expect(methods.find((x) => x.origin_session_id === sessionId)).toMatchObject({ card: { last4: '0341' } });
    expect(JSON.stringify(methods)).not.toContain('4000000000000341');
    const session = await api(m.api_key, 'GET', `/payments/sessions/${sessionId}`);
    expect(session.body.data).toMatchObject({ status: 'completed', payment_type: 'subscription' });
  });

  it('a year of monthly renewals through the sandbox clock: exactly 12 payments and 12 ledger credits', async () => {
    const y = await t.merchant({ country: 'NG', currency: 'NGN' });
    const sub = await sandboxSubscription(y.api_key);
    expect(sub).toMatchObject({ status: 'active', payment_status: 'paid', frequency: 'monthly' });
    const to = new Date(Date.parse(sub.created_at) + 366 * 86_400_000).toISOString();
    const res = await advance(y.api_key, sub.id, to);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'active', current_period: { index: 12 } });
    // The clock is where it was moved to, and keeps running from there.
    expect(Date.parse(res.body.data.clock) - Date.parse(to)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(res.body.data.clock) - Date.parse(to)).toBeLessThan(30_000);
    const charges = await chargesOf(y.merchant_id, sub.id);
    expect(charges).toHaveLength(13); // the first payment + 12 renewals
    expect(charges.filter((c) => c.status === 'succeeded')).toHaveLength(13);
    expect(new Set(charges.map((c) => c.reference_key)).size).toBe(13);
    // Every payment credits the wallet once (1.5% + ₦100 fee: ₦4,825 net of ₦5,000).
    expect(
      await eventually(async () => (await t.walletBalances(y.merchant_id))[0]?.transaction_count === 13, 20_000),
    ).toBe(true);
    expect(await t.walletBalances(y.merchant_id)).toEqual([
      { currency: 'NGN', balance: 13 * 482_500, total_credits: 13 * 482_500, total_debits: 0, transaction_count: 13 },
    ]);
    const renewals = await (
      await t.db('subscriptions')
    )
      .collection('renewals')
      .find({ subscription_id: sub.id })
      .toArray();
    expect(renewals.map((r) => r.status)).toEqual(Array(12).fill('paid'));
    // The payment events of renewals say subscription.
    const stored = await nats.jsm.streams.getMessage('PAYMENTS', { last_by_subj: 'payments.payment.succeeded' });
    expect(stored.json<EventEnvelope>().data).toMatchObject({
      payment_type: 'subscription',
      subscription_frequency_key: 'monthly',
    });
    // And the subscription's own events went out before the clock answered.
    const subjects = await subjectsOf(sub.id);
    expect(subjects.filter((s) => s === 'renewed')).toHaveLength(12);
    expect(subjects[0]).toBe('created');
  });

  it('dunning with the 0341 card: retries after 1, 3 and 5 days, then paused; resume retries at once', async () => {
    const sub = await sandboxSubscription(m.api_key, { card_number: '4000 0000 0000 0341' });
    const end = sub.current_period.end as string;
    const failed = await advance(m.api_key, sub.id, end);
    expect(failed.body.data).toMatchObject({
      status: 'due',
      payment_status: 'failed',
      decline_reason: 'card_declined',
      attempts_left: 3,
      failed_attempts: 1,
    });
    expect(Date.parse(failed.body.data.next_retry_at) - Date.parse(end)).toBe(86_400_000);
    const paused = await advance(m.api_key, sub.id, new Date(Date.parse(end) + 6 * 86_400_000).toISOString());
    expect(paused.body.data).toMatchObject({
      status: 'paused',
      pause_reason: 'retries_exhausted',
      attempts_left: 0,
      next_payment_date: null,
      access_until: end,
    });
    const charges = await chargesOf(m.merchant_id, sub.id);
    expect(charges.map((c) => c.status).sort()).toEqual(['failed', 'failed', 'failed', 'failed', 'succeeded']);
    const resumed = await api(m.api_key, 'PATCH', `/subscriptions/${sub.id}/resume`);
    expect(resumed.body.data).toMatchObject({ status: 'due', attempts_left: 4 });
    // The immediate retry runs on the next scheduler pass (the card still declines).
    expect(
      await eventually(
        async () => (await api(m.api_key, 'GET', `/subscriptions/${sub.id}`)).body.data.failed_attempts === 1,
        10_000,
      ),
    ).toBe(true);
    expect(await subjectsOf(sub.id)).toEqual([
      'created',
      'payment_failed',
      'payment_failed',
      'payment_failed',
      'payment_failed',
      'paused',
      'resumed',
      'payment_failed',
    ]);
  });

  it('cancel: now (spec 4.6), twice, at period end, and nobody else’s', async () => {
    const now = await sandboxSubscription(m.api_key);
    const first = await api(m.api_key, 'PATCH', `/subscriptions/${now.id}/cancel`);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      id: now.id,
      status: 'cancelled',
      cancelled_at: expect.any(String),
      cancel_at_period_end: false,
      cancel_at: null,
    });
    const second = await api(m.api_key, 'PATCH', `/subscriptions/${now.id}/cancel`);
    expect(second.body.data).toEqual(first.body.data);

    const later = await sandboxSubscription(m.api_key);
    const scheduled = await api(m.api_key, 'PATCH', `/subscriptions/${later.id}/cancel?at_period_end=true`);
    expect(scheduled.body.data).toMatchObject({
      status: 'active',
      cancelled_at: null,
      cancel_at_period_end: true,
      cancel_at: later.current_period.end,
    });
    const ended = await advance(
      m.api_key,
      later.id,
      new Date(Date.parse(later.current_period.end) + 1000).toISOString(),
    );
    expect(ended.body.data).toMatchObject({ status: 'cancelled', cancelled_at: later.current_period.end });
    expect(await chargesOf(m.merchant_id, later.id)).toHaveLength(1); // the first payment only

    const other = await t.merchant({ country: 'NG', currency: 'NGN' });
    const foreign = await api(other.api_key, 'PATCH', `/subscriptions/${later.id}/cancel`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    expect((await api(other.api_key, 'GET', `/subscriptions/${later.id}`)).status).toBe(404);
    expect((await api(m.api_key, 'GET', '/subscriptions/sub_nope')).status).toBe(404);

    const paused = await sandboxSubscription(m.api_key);
    expect((await api(m.api_key, 'PATCH', `/subscriptions/${paused.id}/pause`)).body.data).toMatchObject({
      status: 'paused',
      pause_reason: 'merchant',
      access_until: paused.current_period.end,
    });
    expect((await api(m.api_key, 'PATCH', `/subscriptions/${paused.id}/pause`)).status).toBe(409);
    expect((await api(m.api_key, 'PATCH', `/subscriptions/${paused.id}/cancel`)).body.data.status).toBe('cancelled');
  });

  it('sandbox helpers: live keys refused, bad input named', async () => {
    const live = await t.merchant({ country: 'NG', currency: 'NGN', keyMode: 'live' });
    const refused = await api(live.api_key, 'POST', '/sandbox/subscriptions', {
      amount: 1000,
      currency: 'NGN',
      customer: { email: 'a@example.com' },
      subscription_frequency_key: 'monthly',
      card_number: '4242424242424242',
    });
    expect(refused.status).toBe(403);
    const sub = await sandboxSubscription(m.api_key, { subscription_frequency_key: 'weekly' });
    const back = await advance(m.api_key, sub.id, '2020-01-01T00:00:00Z');
    expect([back.status, back.body.error.param]).toEqual([400, 'to']);
    const declining = await api(m.api_key, 'POST', '/sandbox/subscriptions', {
      amount: 1000,
      currency: 'NGN',
      customer: { email: 'a@example.com' },
      subscription_frequency_key: 'monthly',
      card_number: '4000 0000 0000 0002',
    });
    expect([declining.status, declining.body.error.param]).toEqual([400, 'card_number']);
    const trial = await sandboxSubscription(m.api_key, { trial_days: 14 });
    expect(trial).toMatchObject({ status: 'active', payment_status: 'none', current_period: null });
    expect(Date.parse(trial.trial.trial_end) - Date.parse(trial.trial.trial_start)).toBe(14 * 86_400_000);
    expect(trial.next_payment_date).toBe(trial.trial.trial_end);
    expect(await chargesOf(m.merchant_id, trial.id)).toHaveLength(0);
  });

  it('GET /subscriptions: every parameter, stable order, totals, merchant and mode isolation', async () => {
    const l = await t.merchant({ country: 'NG', currency: 'NGN' });
    const made: { id: string; amount: number; frequency: string }[] = [];
    for (const [i, frequency] of ['weekly', 'monthly', 'quarterly', 'biannually', 'yearly', 'monthly'].entries()) {
      made.push(
        await sandboxSubscription(l.api_key, {
          amount: [900, 100, 500, 100, 700, 300][i],
          subscription_frequency_key: frequency,
          product_id: i % 2 === 0 ? 11 : 22,
          product_name: 'Plan',
        }),
      );
    }
    await api(l.api_key, 'PATCH', `/subscriptions/${made[1]!.id}/cancel`);
    await api(l.api_key, 'PATCH', `/subscriptions/${made[2]!.id}/pause`);
    const list = async (q: string) => (await api(l.api_key, 'GET', `/subscriptions${q}`)).body.data;

    const all = await list('');
    expect(all).toMatchObject({ total: 6, limit: 20, offset: 0 });
    expect(all.subscriptions.map((s: { id: string }) => s.id)).toEqual(made.map((s) => s.id).reverse());
    expect(Object.keys(all.subscriptions[0]).slice(0, 3)).toEqual(['id', 'product_id', 'product_name']);

    expect((await list('?sort_order=ASC')).subscriptions.map((s: { id: string }) => s.id)).toEqual(
      made.map((s) => s.id),
    );
    const byPrice = (await list('?sort_by=actual_price&sort_order=ASC')).subscriptions;
    expect(byPrice.map((s: { amount: number }) => s.amount)).toEqual([100, 100, 300, 500, 700, 900]);
    // Ties (two at 100) keep created_at order in the requested direction.
    expect(byPrice[0].id).toBe(made[1]!.id);
    const byNext = (await list('?sort_by=next_payment&sort_order=ASC')).subscriptions;
    // Cancelled and paused have no next payment (null sorts first ascending), then weekly, monthly…
    expect(byNext.slice(2).map((s: { frequency: string }) => s.frequency)).toEqual([
      'weekly',
      'monthly',
      'biannually',
      'yearly',
    ]);
    const byStatus = (await list('?sort_by=payment_status&sort_order=DESC')).subscriptions;
    expect(byStatus.map((s: { payment_status: string }) => s.payment_status)).toEqual(Array(6).fill('paid'));

    expect((await list('?status=cancelled')).subscriptions.map((s: { id: string }) => s.id)).toEqual([made[1]!.id]);
    expect((await list('?status=paused')).total).toBe(1);
    expect((await list('?status=active&product_id=11')).total).toBe(2);
    expect((await list('?product_id=22')).total).toBe(3);
    expect((await list('?product_id=999')).subscriptions).toEqual([]);

    const page1 = await list('?limit=4&offset=0&sort_by=actual_price');
    const page2 = await list('?limit=4&offset=4&sort_by=actual_price');
    expect(page2).toMatchObject({ total: 6, limit: 4, offset: 4 });
    const ids = [...page1.subscriptions, ...page2.subscriptions].map((s: { id: string }) => s.id);
    expect(new Set(ids).size).toBe(6);

    for (const [q, param] of [
      ['?status=done', 'status'],
      ['?product_id=x', 'product_id'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?offset=-1', 'offset'],
      ['?sort_by=price', 'sort_by'],
      ['?sort_order=desc', 'sort_order'],
    ]) {
      const res = await api(l.api_key, 'GET', `/subscriptions${q}`);
      expect([q, res.status, res.body.error?.param]).toEqual([q, 400, param]);
    }

    // Another merchant, and the same merchant's live key, see none of them.
    const other = await t.merchant({ country: 'NG', currency: 'NGN' });
    expect((await api(other.api_key, 'GET', '/subscriptions')).body.data.total).toBe(0);
    const liveKey = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': l.user_token },
      body: { mode: 'live' },
    });
    expect(liveKey.status).toBe(201);
    expect((await api(liveKey.body.data.api_key, 'GET', '/subscriptions')).body.data.total).toBe(0);
    expect((await api(liveKey.body.data.api_key, 'GET', `/subscriptions/${made[0]!.id}`)).status).toBe(404);
  });
});
