import type { Browser, Page } from 'playwright-core';
import { formatMoney, type EventEnvelope, type PaymentOutcome } from '@ppay/kernel';
import { connectNats, createLogger, type NatsContext } from '@ppay/runtime';
import { testInfraUrls } from '../support/infra';
import { launchChromium, recordingSite } from '../support/browser';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/** The merchant's site: success and cancel pages on 127.0.0.1 that record the visits. */
const merchantSite = () => recordingSite('shop', 'shop', (url) => (url.startsWith('/success') ? 'Thanks!' : 'Cart'));

async function fillCard(page: Page, number: string) {
  await page.fill('#name', 'Ada Obi');
  await page.fill('#card_number', number);
  await page.fill('#expiry', '12/34');
  await page.fill('#cvc', '123');
}

/** The hosted checkout page in headless Chromium (spec 4.2 payment_url, 3.1). */
describe('hosted checkout page', () => {
  let t: TestPlatform;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof merchantSite>>;
  let nats: NatsContext;
  let m: Awaited<ReturnType<TestPlatform['merchant']>>;
  const BUSINESS = 'Ada & Sons <Bakery>';

  const session = async (extra: Record<string, unknown> = {}, key = m.api_key) => {
    const res = await http(t.url, 'POST', '/api/v1/partner/payments/sessions', {
      headers: { 'x-api-key': key },
      body: {
        amount: 500_000,
        currency: 'NGN',
        product_name: '<img src=x onerror=alert(1)> Sourdough subscription',
        customer: { email: 'ada@example.com', first_name: 'Ada' },
        success_url: `${site.url}/success?order=42`,
        cancel_url: `${site.url}/cancel`,
        metadata: { order: 42 },
        ...extra,
      },
    });
    expect(res.status).toBe(200);
    return res.body.data as { session_id: string; payment_url: string };
  };
  const getSession = async (id: string, key = m.api_key) =>
    (await http(t.url, 'GET', `/api/v1/partner/payments/sessions/${id}`, { headers: { 'x-api-key': key } })).body.data;
  const balances = (merchantId: number) => t.walletBalances(merchantId);

  beforeAll(async () => {
    site = await merchantSite();
    t = await startTestPlatform('checkout');
    browser = await launchChromium();
    nats = await connectNats(testInfraUrls().natsUrl, 'checkout-test', createLogger('checkout-test', 'silent'));
    m = await t.merchant({ country: 'NG', currency: 'NGN', businessName: BUSINESS });
  });
  afterAll(async () => {
    await nats?.nc.drain();
    await browser?.close();
    await t?.stop();
    await site?.close();
  });

  it('shows merchant, product, amount, fee and currency, escaped, under a strict CSP; paying redirects to success_url and credits the wallet once', async () => {
    const s = await session();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    const res = await page.goto(s.payment_url);
    expect(res?.status()).toBe(200);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).toContain(`form-action 'self' ${site.url}`);
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');

    await expect(page.textContent('[data-testid=sandbox-banner]')).resolves.toContain('SANDBOX');
    // The business name once marketplace publishes it, the merchant id until then — escaped either way.
    expect([BUSINESS, `Merchant #${m.merchant_id}`]).toContain(await page.textContent('[data-testid=merchant]'));
    expect(await page.textContent('[data-testid=product]')).toBe('<img src=x onerror=alert(1)> Sourdough subscription');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.textContent('[data-testid=price]')).toBe(formatMoney({ amount: 500_000, currency: 'NGN' }));
    expect(await page.textContent('[data-testid=fee]')).toBe(formatMoney({ amount: 17_500, currency: 'NGN' }));
    expect(await page.textContent('[data-testid=amount]')).toBe(formatMoney({ amount: 500_000, currency: 'NGN' }));
    expect(await page.textContent('[data-testid=currency]')).toBe('NGN');
    const cards = await page.textContent('[data-testid=test-cards]');
    for (const n of [
      '4242 4242 4242 4242',
      '4000 0000 0000 0002',
      '4000 0000 0000 9995',
      '4000 0000 0000 0119',
      '4000 0000 0000 0341',
    ])
      expect(cards).toContain(n);
    await page.setViewportSize({ width: 900, height: 1100 });
    await page.screenshot({ path: '/tmp/checkout.png', fullPage: true });

    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(`${site.url}/success**`), page.click('[data-testid=pay]')]);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/success');
    expect(landed.searchParams.get('order')).toBe('42');
    expect(landed.searchParams.get('session_id')).toBe(s.session_id);
    expect(await page.textContent('#shop')).toBe('Thanks!');
    expect(errors).toEqual([]);

    const got = await getSession(s.session_id);
    expect(got).toMatchObject({ session_id: s.session_id, status: 'completed', amount: 500_000, currency: 'NGN' });
    expect(Date.parse(got.completed_at)).toBeGreaterThanOrEqual(Date.parse(got.created_at));

    // payment.succeeded went out with the session's data and the 6.5 breakdown; the ledger credits the net once.
    expect(await eventually(async () => (await balances(m.merchant_id)).length === 1, 10_000)).toBe(true);
    expect(await balances(m.merchant_id)).toEqual([
      { currency: 'NGN', balance: 482_500, total_credits: 482_500, total_debits: 0, transaction_count: 1 },
    ]);
    const stored = await nats.jsm.streams.getMessage('PAYMENTS', { last_by_subj: 'payments.payment.succeeded' });
    expect(stored.header.get('Nats-Msg-Id')).toBe(stored.json<EventEnvelope>().event_id);
    const event = stored.json<EventEnvelope>();
    const data = event.data as PaymentOutcome;
    expect(data).toMatchObject({
      session_id: s.session_id,
      status: 'succeeded',
      payment_type: 'one_time',
      product: { id: null, title: '<img src=x onerror=alert(1)> Sourdough subscription', type: 'custom' },
      metadata: { order: 42 },
      breakdown: {
        customer_paid: { amount: 500_000, currency: 'NGN' },
        merchant_gross: { amount: 500_000, currency: 'NGN' },
        merchant_net: { amount: 482_500, currency: 'NGN' },
      },
    });
    expect(data.charge_id).toMatch(/^ch_/);

    // Paying again (back button, double submit) changes nothing and lands on success again.
    await page.goto(s.payment_url);
    expect(await page.textContent('[data-testid=completed]')).toContain('Payment received');
    const again = await fetch(`${t.url}/checkout/${s.session_id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card_number: '4242424242424242', expiry: '12/34', cvc: '123' }),
      redirect: 'manual',
    });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(`${site.url}/success?order=42&session_id=${s.session_id}`);
    await new Promise((r) => setTimeout(r, 500));
    expect((await balances(m.merchant_id))[0]!.transaction_count).toBe(1);
    await page.close();
  });

  it('a declined card shows the error and keeps the session open; another card then pays', async () => {
    const other = await t.merchant({ country: 'NG', currency: 'NGN' });
    const s = await session({}, other.api_key);
    const page = await browser.newPage();
    await page.goto(s.payment_url);
    await fillCard(page, '4000 0000 0000 0002');
    await page.click('[data-testid=pay]');
    await expect(page.textContent('[data-testid=error]')).resolves.toBe('Your card was declined.');
    expect(new URL(page.url()).pathname).toBe(`/checkout/${s.session_id}/pay`);
    expect((await getSession(s.session_id, other.api_key)).status).toBe('pending');

    await fillCard(page, '4000 0000 0000 9995');
    await page.click('[data-testid=pay]');
    await expect(page.textContent('[data-testid=error]')).resolves.toBe('Your card has insufficient funds.');

    // Invalid input is caught before any gateway call.
    await fillCard(page, '4242 4242 4242 4241');
    await page.click('[data-testid=pay]');
    await expect(page.textContent('[data-testid=error]')).resolves.toBe('Your card number is invalid');

    // The slow card fails after ~2 s with a processing error.
    await fillCard(page, '4000 0000 0000 0119');
    const started = Date.now();
    await page.click('[data-testid=pay]');
    await expect(page.textContent('[data-testid=error]')).resolves.toContain('An error occurred while processing');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);

    // Each decline published payment.failed with its own charge; none credited anything.
    const failed = await nats.jsm.streams.getMessage('PAYMENTS', { last_by_subj: 'payments.payment.failed' });
    expect(failed.json<EventEnvelope>().data).toMatchObject({
      session_id: s.session_id,
      status: 'failed',
      failure_reason: 'processing_error',
    });

    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(`${site.url}/success**`), page.click('[data-testid=pay]')]);
    expect((await getSession(s.session_id, other.api_key)).status).toBe('completed');
    expect(await eventually(async () => (await balances(other.merchant_id)).length === 1, 10_000)).toBe(true);
    expect((await balances(other.merchant_id))[0]).toMatchObject({ balance: 482_500, transaction_count: 1 });
    await page.close();
  });

  it('cancel redirects to cancel_url; the session stays pending until it expires', async () => {
    const s = await session();
    const page = await browser.newPage();
    await page.goto(s.payment_url);
    await Promise.all([page.waitForURL(`${site.url}/cancel**`), page.click('[data-testid=cancel]')]);
    expect(new URL(page.url()).searchParams.get('session_id')).toBe(s.session_id);
    expect(await page.textContent('#shop')).toBe('Cart');
    expect((await getSession(s.session_id)).status).toBe('pending');
    await page.close();
  });

  it('without success_url / cancel_url the platform shows its own done pages', async () => {
    const s = await session({ success_url: undefined, cancel_url: undefined });
    const page = await browser.newPage();
    await page.goto(s.payment_url);
    await page.click('[data-testid=cancel]');
    await expect(page.textContent('[data-testid=cancelled]')).resolves.toContain('You cancelled this checkout');
    await page.goto(s.payment_url);
    await fillCard(page, '5555 5555 5555 4444');
    await page.click('[data-testid=pay]');
    await expect(page.textContent('[data-testid=completed]')).resolves.toContain('Payment received');
    expect(new URL(page.url()).pathname).toBe(`/checkout/${s.session_id}`);
    await page.close();
  });

  it('a subscription checkout paid on the page creates an active subscription with the saved card', async () => {
    const subscriber = await t.merchant({ country: 'NG', currency: 'NGN' });
    const s = await session({ subscription_frequency_key: 'monthly' }, subscriber.api_key);
    const page = await browser.newPage();
    await page.goto(s.payment_url);
    await fillCard(page, '4000 0000 0000 0341');
    await Promise.all([page.waitForURL(`${site.url}/success**`), page.click('[data-testid=pay]')]);
    const list = async () =>
      (await http(t.url, 'GET', '/api/v1/partner/subscriptions', { headers: { 'x-api-key': subscriber.api_key } })).body
        .data;
    expect(await eventually(async () => (await list()).subscriptions[0]?.status === 'active', 10_000)).toBe(true);
    const [sub] = (await list()).subscriptions;
    expect(sub).toMatchObject({
      checkout_session_id: s.session_id,
      customer_email: 'ada@example.com',
      amount: 500_000,
      currency: 'NGN',
      frequency: 'monthly',
      payment_status: 'paid',
    });
    const event = await nats.jsm.streams.getMessage('SUBSCRIPTIONS', {
      last_by_subj: 'subscriptions.subscription.created',
    });
    expect(event.json<EventEnvelope>()).toMatchObject({
      merchant_id: subscriber.merchant_id,
      mode: 'sandbox',
      data: {
        subscription_id: sub.id,
        plan: { frequency: 'monthly', amount: { amount: 500_000, currency: 'NGN' } },
        current_period: { index: 0, start: sub.current_period.start, end: sub.current_period.end },
        trial: null,
      },
    });
    expect(await eventually(async () => (await balances(subscriber.merchant_id)).length === 1, 10_000)).toBe(true);
    await page.close();
  });

  it('an unknown session id is a 404 page', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${t.url}/checkout/cs_${'A'.repeat(32)}`);
    expect(res?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Checkout not found');
    await page.close();
  });
});

describe('hosted checkout page: expiry', () => {
  let t: TestPlatform;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestPlatform('checkout-expiry', { envFor: { payments: { SESSION_TTL_MS: '1500' } } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('an expired session shows the expired page, GET says expired, and paying is refused', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    const created = await http(t.url, 'POST', '/api/v1/partner/payments/sessions', {
      headers: { 'x-api-key': m.api_key },
      body: { amount: 100_000, currency: 'NGN', product_name: 'Bread', customer: { email: 'c@example.com' } },
    });
    const s = created.body.data as { session_id: string; payment_url: string };
    const page = await browser.newPage();
    // Open while still pending, let it expire with the page open, then try to pay.
    await page.goto(s.payment_url);
    expect(await page.locator('[data-testid=pay-form]').count()).toBe(1);
    await new Promise((r) => setTimeout(r, 2_000));
    await fillCard(page, '4242 4242 4242 4242');
    await page.click('[data-testid=pay]');
    await expect(page.textContent('[data-testid=expired]')).resolves.toContain('This checkout session has expired');
    const reload = await page.goto(s.payment_url);
    expect(reload?.status()).toBe(410);
    expect(await page.locator('[data-testid=pay-form]').count()).toBe(0);
    const got = await http(t.url, 'GET', `/api/v1/partner/payments/sessions/${s.session_id}`, {
      headers: { 'x-api-key': m.api_key },
    });
    expect(got.body.data).toMatchObject({ status: 'expired', completed_at: null });
    await page.close();
  });
});
