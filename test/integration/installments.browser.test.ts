import type { Browser } from 'playwright-core';
import { formatMoney, newRequestId, type EventEnvelope, type PaymentOutcome } from '@ppay/kernel';
import { callerToMetadata, connectNats, createLogger, ServiceClient, type NatsContext } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import { testInfraUrls } from '../support/infra';
import { launchChromium, recordingSite } from '../support/browser';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

type Merchant = Awaited<ReturnType<TestPlatform['merchant']>>;
const DAY = 86_400_000;
const NGN = (amount: number) => ({ amount, currency: 'NGN' });
const dateOnPage = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(iso),
  );

/** Issue 26 through the real stack: the hosted page shows the schedule, pays part 1; the plan runs on the clock. */
describe('installment plans', () => {
  let t: TestPlatform;
  let browser: Browser;
  let nats: NatsContext;
  let site: Awaited<ReturnType<typeof recordingSite>>;
  let m: Merchant;
  const api = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const installmentSession = async (key: string, extra: Record<string, unknown> = {}) => {
    const res = await api(key, 'POST', '/payments/sessions', {
      amount: 300_001,
      currency: 'NGN',
      product_name: 'Laptop',
      customer: { email: 'ada@example.com', first_name: 'Ada' },
      success_url: `${site.url}/success`,
      installments: { count: 3, interval: 'monthly' },
      ...extra,
    });
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    return res.body.data;
  };
  const payOnPage = (sessionId: string, card: string) =>
    fetch(`${t.url}/checkout/${sessionId}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card_number: card, expiry: '12/34', cvc: '123' }),
      redirect: 'manual',
    });
  const plan = async (key: string, id: string) => (await api(key, 'GET', `/installment-plans/${id}`)).body.data;
  /** Every event of one stream about one plan (payments name it in `installment`, plans in `plan_id`). */
  const eventsOf = async (stream: string, planId: string) => {
    const seen: EventEnvelope[] = [];
    const consumer = await nats.js.consumers.get(stream);
    const messages = await consumer.fetch({ max_messages: 10_000, expires: 1000 });
    for await (const msg of messages) {
      const e = msg.json<EventEnvelope>();
      const data = e.data as { plan_id?: string; installment?: { plan_id: string } | null };
      if (data.plan_id === planId || data.installment?.plan_id === planId) seen.push(e);
      if (msg.info.pending === 0) break;
    }
    return seen;
  };

  beforeAll(async () => {
    site = await recordingSite('shop', 'shop', () => 'Thanks!');
    t = await startTestPlatform('installments');
    browser = await launchChromium();
    nats = await connectNats(testInfraUrls().natsUrl, 'installments-test', createLogger('installments-test', 'silent'));
    m = await t.merchant({ country: 'NG', currency: 'NGN', businessName: 'Ada Devices' });
  });
  afterAll(async () => {
    await nats?.nc.drain();
    await browser?.close();
    await t?.stop();
    await site?.close();
  });

  it('the page shows every part’s date and amount before paying, pays part 1 and saves the card; the clock completes the plan', async () => {
    const s = await installmentSession(m.api_key);
    expect(s).toMatchObject({ payment_type: 'installment', amount: 100_001, currency: 'NGN' });
    expect(s.installments).toMatchObject({ count: 3, interval: 'monthly', amount: 300_001, currency: 'NGN' });
    const schedule = s.installments.schedule as { number: number; total_amount: number; due_at: string }[];
    expect(schedule.map((p) => p.total_amount)).toEqual([100_001, 100_000, 100_000]);

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    expect((await page.goto(s.payment_url))?.status()).toBe(200);
    expect(await page.locator('[data-testid=installment]').count()).toBe(3);
    expect(await page.locator('[data-testid=installment-date]').allTextContents()).toEqual([
      'Today',
      dateOnPage(schedule[1]!.due_at),
      dateOnPage(schedule[2]!.due_at),
    ]);
    expect(await page.locator('[data-testid=installment-amount]').allTextContents()).toEqual(
      [100_001, 100_000, 100_000].map((a) => formatMoney(NGN(a))),
    );
    expect(await page.textContent('[data-testid=installments-summary]')).toContain(
      `Paid in 3 monthly installments of ${formatMoney(NGN(300_001))} in total.`,
    );
    expect(await page.textContent('[data-testid=amount]')).toBe(formatMoney(NGN(100_001)));
    await page.setViewportSize({ width: 900, height: 1200 });
    await page.screenshot({ path: '/tmp/installments-checkout.png', fullPage: true });
    await page.fill('#card_number', '4242 4242 4242 4242');
    await page.fill('#expiry', '12/34');
    await page.fill('#cvc', '123');
    await Promise.all([page.waitForURL(`${site.url}/success**`), page.click('[data-testid=pay]')]);
    expect(errors).toEqual([]);

    const planId = s.installments.plan_id as string;
    expect(await eventually(async () => (await plan(m.api_key, planId))?.status === 'active', 10_000)).toBe(true);
    const active = await plan(m.api_key, planId);
    expect(active).toMatchObject({
      amount: 300_001,
      amount_paid: 100_001,
      amount_remaining: 200_000,
      checkout_session_id: s.session_id,
      card: { brand: 'visa', last4: '4242' },
    });
    expect(active.parts.map((p: { status: string }) => p.status)).toEqual(['paid', 'scheduled', 'scheduled']);
    expect(active.parts[0].charge_id).toMatch(/^ch_/);
    // Later parts fall due a month apart from the payment (the calendar's month ends).
    expect(Date.parse(active.parts[1].due_at) - Date.parse(active.parts[0].due_at)).toBeGreaterThanOrEqual(28 * DAY);

    const to = new Date(Date.parse(active.parts[2].due_at) + DAY).toISOString();
    const done = await api(m.api_key, 'POST', `/sandbox/installment-plans/${planId}/advance`, { to });
    expect([done.status, done.body.data?.status]).toEqual([200, 'completed']);
    expect(done.body.data).toMatchObject({ amount_paid: 300_001, amount_remaining: 0, next_payment_date: null });

    // Each part's payment.succeeded names it; the plan's events: created, completed.
    const payments = (await eventsOf('PAYMENTS', planId)).filter((e) => e.subject === 'payments.payment.succeeded');
    expect(payments.map((e) => (e.data as PaymentOutcome).installment)).toEqual([
      { plan_id: planId, number: 1, count: 3, amount_remaining: NGN(200_000) },
      { plan_id: planId, number: 2, count: 3, amount_remaining: NGN(100_000) },
      { plan_id: planId, number: 3, count: 3, amount_remaining: NGN(0) },
    ]);
    expect(payments.every((e) => (e.data as PaymentOutcome).payment_type === 'installment')).toBe(true);
    expect((await eventsOf('SUBSCRIPTIONS', planId)).map((e) => e.subject)).toEqual([
      'subscriptions.installment_plan.created',
      'subscriptions.installment_plan.completed',
    ]);
    // Every payment credits the wallet once.
    expect(
      await eventually(async () => (await t.walletBalances(m.merchant_id))[0]?.transaction_count === 3, 20_000),
    ).toBe(true);
  });

  it('card 0341 pays part 1 and declines every later one: +1, +3, +5 days, then defaulted, nothing more', async () => {
    const s = await installmentSession(m.api_key, { installments: { count: 3, interval: 'weekly' } });
    expect((await payOnPage(s.session_id, '4000000000000341')).status).toBe(303);
    const planId = s.installments.plan_id as string;
    expect(await eventually(async () => (await plan(m.api_key, planId))?.status === 'active', 10_000)).toBe(true);
    const active = await plan(m.api_key, planId);
    const to = new Date(Date.parse(active.created_at) + 60 * DAY).toISOString();
    const res = await api(m.api_key, 'POST', `/sandbox/installment-plans/${planId}/advance`, { to });
    expect(res.body.data).toMatchObject({
      status: 'defaulted',
      default_reason: 'retries_exhausted',
      amount_paid: 100_001,
    });
    expect(res.body.data.parts.map((p: { status: string }) => p.status)).toEqual(['paid', 'failed', 'cancelled']);
    expect(res.body.data.parts[1]).toMatchObject({ failed_attempts: 4, decline_reason: 'card_declined' });
    const firstDue = Date.parse(res.body.data.parts[1].due_at);
    expect(Date.parse(res.body.data.defaulted_at) - firstDue).toBe(5 * DAY);
    const charges = await (
      await t.db('payments')
    )
      .collection('charges')
      .find({ reference_key: { $regex: `^inst:${planId}:` } })
      .toArray();
    expect(charges.map((c) => [c.reference_key, c.status]).sort()).toEqual(
      [1, 2, 3, 4].map((a) => [`inst:${planId}:2:${a}`, 'failed']),
    );
    const failed = (await eventsOf('PAYMENTS', planId)).filter((e) => e.subject === 'payments.payment.failed');
    expect(failed.map((e) => (e.data as PaymentOutcome).installment?.amount_remaining)).toEqual(
      Array(4).fill(NGN(200_000)),
    );
    expect((await eventsOf('SUBSCRIPTIONS', planId)).map((e) => e.subject)).toEqual([
      'subscriptions.installment_plan.created',
      'subscriptions.installment_plan.defaulted',
    ]);
  });

  it('cancel stops the later parts; list filters and pages; live keys cannot move a clock', async () => {
    const c = await t.merchant({ country: 'NG', currency: 'NGN' });
    const ids: string[] = [];
    for (const email of ['a@example.com', 'b@example.com', 'a@example.com']) {
      const s = await installmentSession(c.api_key, { customer: { email } });
      expect((await payOnPage(s.session_id, '4242424242424242')).status).toBe(303);
      ids.push(s.installments.plan_id);
    }
    expect(
      await eventually(
        async () => (await api(c.api_key, 'GET', '/installment-plans')).body.data.installment_plans.length === 3,
        10_000,
      ),
    ).toBe(true);
    const cancelled = await api(c.api_key, 'POST', `/installment-plans/${ids[0]}/cancel`);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', amount_paid: 100_001, amount_remaining: 200_000 });
    const later = await api(c.api_key, 'POST', `/sandbox/installment-plans/${ids[0]}/advance`, {
      to: new Date(Date.now() + 100 * DAY).toISOString(),
    });
    expect(later.body.data.parts.map((p: { status: string }) => p.status)).toEqual(['paid', 'cancelled', 'cancelled']);

    const page1 = (await api(c.api_key, 'GET', '/installment-plans?limit=2')).body.data;
    expect(page1.installment_plans.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    const page2 = (await api(c.api_key, 'GET', `/installment-plans?limit=2&cursor=${page1.next_cursor}`)).body.data;
    expect([page2.installment_plans.map((p: { id: string }) => p.id), page2.has_more]).toEqual([[ids[0]], false]);
    const byEmail = (await api(c.api_key, 'GET', '/installment-plans?customer_email=a%40example.com&status=active'))
      .body.data;
    expect(byEmail.installment_plans.map((p: { id: string }) => p.id)).toEqual([ids[2]]);
    expect((await api(c.api_key, 'GET', '/installment-plans?cursor=bogus')).body.error.code).toBe('INVALID_CURSOR');
    // Another merchant's plan is not found.
    expect((await api(m.api_key, 'GET', `/installment-plans/${ids[1]}`)).status).toBe(404);

    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': c.user_token },
      body: { mode: 'live' },
    });
    expect(live.status).toBe(201);
    const res = await api(live.body.data.api_key, 'POST', `/sandbox/installment-plans/${ids[1]}/advance`, {
      to: new Date(Date.now() + DAY).toISOString(),
    });
    expect([res.status, res.body.error.code]).toEqual([403, 'PERMISSION_DENIED']);
  });

  it('a catalogue product is split only when it allows installments (fx-pricing flag)', async () => {
    const admin = new ServiceClient<types.fxpricing.FxPricingServiceClient>(
      'fx-pricing',
      loadPlatformProto().ppay.fxpricing.v1.FxPricingService,
      t.platform.grpcAddress('fx-pricing'),
      { deadlineMs: 5_000 },
    );
    const internal = () => callerToMetadata({ requestId: newRequestId(), auth: 'internal' });
    const product = (installments_allowed: boolean) =>
      admin.call(
        'UpsertProduct',
        { merchant_id: m.merchant_id, name: 'Course', type: 'digital', base_price: NGN(300_000), installments_allowed },
        internal(),
      );
    try {
      const refused = await product(false);
      const res = await api(m.api_key, 'POST', '/payments/sessions', {
        amount: 300_000,
        currency: 'NGN',
        product_id: refused.id,
        customer: { email: 'ada@example.com' },
        installments: { count: 2, interval: 'monthly' },
      });
      expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual([
        400,
        'INSTALLMENTS_NOT_ALLOWED',
        'installments',
      ]);
      const allowed = await product(true);
      const ok = await api(m.api_key, 'POST', '/payments/sessions', {
        amount: 300_000,
        currency: 'NGN',
        product_id: allowed.id,
        customer: { email: 'ada@example.com' },
        installments: { count: 2, interval: 'monthly' },
      });
      expect([ok.status, ok.body.data?.payment_type, ok.body.data?.installments?.count]).toEqual([
        200,
        'installment',
        2,
      ]);
    } finally {
      admin.close();
    }
  });
});
