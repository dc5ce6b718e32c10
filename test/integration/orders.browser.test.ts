import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startReceiver } from '../support/webhook-receiver';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/**
 * Physical products end to end: the hosted page in Chromium collects a shipping address, the stock is
 * never oversold, a paid checkout makes one order, orders are fulfilled, delivered and cancelled (with
 * the refund and the stock back), and order.* webhooks follow.
 */
describe('physical products and orders', () => {
  let t: TestPlatform;
  let browser: Browser;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let m: Awaited<ReturnType<TestPlatform['merchant']>>;

  const api = (method: string, url: string, body?: unknown, key = m.api_key) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });

  const product = async (stock: number) => {
    const res = await api('POST', '/products', {
      title: 'Mug',
      type: 'physical',
      price: ngn(400_000),
      stock,
      shipping: { fee: ngn(150_000), countries: ['NG', 'GH'] },
    });
    expect([res.status, res.body.error?.code]).toEqual([200, undefined]);
    return res.body.data.id as number;
  };

  const session = async (productId: number, quantity: number) => {
    const res = await api('POST', '/payments/sessions', {
      product_id: productId,
      quantity,
      customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi' },
    });
    expect([res.status, res.body.error?.code]).toEqual([200, undefined]);
    return res.body.data as { session_id: string; payment_url: string; amount: number; currency: string };
  };

  async function payOnPage(page: Page, url: string) {
    await page.goto(url);
    await page.fill('#ship_name', 'Ada Obi');
    await page.fill('#ship_line1', '12 Ring Road');
    await page.fill('#ship_city', 'Accra');
    await page.selectOption('#ship_country', 'GH');
    await page.fill('#name', 'Ada Obi');
    await page.fill('#card_number', '4242 4242 4242 4242');
    await page.fill('#expiry', '12/34');
    await page.fill('#cvc', '123');
    await page.click('[data-testid=pay]');
  }

  beforeAll(async () => {
    rx = await startReceiver(() => ({ status: 200 }));
    t = await startTestPlatform('orders');
    browser = await launchChromium();
    m = await t.merchant();
    const hook = await http(t.url, 'PUT', `/api/v1/partner/api-keys/${m.api_key_id}/webhook`, {
      headers: { 'x-id-key': m.user_token },
      body: { webhook_url: rx.url('/orders') },
    });
    expect(hook.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await rx?.close();
  });

  it('buys two units on the hosted page with a shipping address, makes one order, then sells out', async () => {
    const mug = await product(3);
    const s = await session(mug, 2);
    expect([s.amount, s.currency]).toEqual([950_000, 'NGN']); // 2 × ₦4,000 + ₦1,500 shipping
    const page = await browser.newPage();
    try {
      await payOnPage(page, s.payment_url);
      await page.waitForSelector('[data-testid=completed]');
      expect(await page.textContent('[data-testid=goods]')).toContain('2 ×');

      const orders = await eventually(async () => (await api('GET', '/orders')).body.data.orders.length === 1, 15_000);
      expect(orders).toBe(true);
      const [order] = (await api('GET', '/orders')).body.data.orders;
      expect(order).toMatchObject({
        status: 'paid',
        product: { id: mug, title: 'Mug', type: 'physical' },
        quantity: 2,
        shipping_address: { name: 'Ada Obi', line1: '12 Ring Road', city: 'Accra', country: 'GH', line2: null },
        session_id: s.session_id,
        amount: { customer_paid: ngn(950_000) },
        is_live: false,
      });
      expect((await api('GET', `/products/${mug}`)).body.data.stock).toBe(1);

      // Only one unit left: a customer asking for two sees "sold out" and pays nothing.
      const second = await session(mug, 2);
      await payOnPage(page, second.payment_url);
      await page.waitForSelector('[data-testid=sold-out]');
      expect(await page.textContent('[data-testid=error]')).toContain('sold out');
      expect((await api('GET', `/payments/sessions/${second.session_id}`)).body.data.status).toBe('pending');
      expect((await api('GET', `/products/${mug}`)).body.data.stock).toBe(1);

      // A country the product does not ship to, posted by hand: refused with a clear message, nothing charged.
      const third = await session(mug, 1);
      const form = new URLSearchParams({
        card_number: '4242424242424242',
        expiry: '12/34',
        cvc: '123',
        ship_name: 'Ada',
        ship_line1: '1 Main St',
        ship_city: 'Austin',
        ship_country: 'US',
      });
      const refused = await fetch(`${t.url}/checkout/${third.session_id}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        redirect: 'manual',
      });
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('this product does not ship to US');
    } finally {
      await page.close();
    }
  });

  it('fulfils and delivers one order, cancels another with a full refund and its stock back; webhooks follow', async () => {
    const mug = await product(5);
    const page = await browser.newPage();
    const sessions = [await session(mug, 1), await session(mug, 2)];
    try {
      for (const s of sessions) {
        await payOnPage(page, s.payment_url);
        await page.waitForSelector('[data-testid=completed]');
      }
    } finally {
      await page.close();
    }
    expect(
      await eventually(
        async () => (await api('GET', `/orders?product_id=${mug}`)).body.data.orders.length === 2,
        15_000,
      ),
    ).toBe(true);
    const [cancelMe, shipMe] = (await api('GET', `/orders?product_id=${mug}`)).body.data.orders;
    expect((await api('GET', `/products/${mug}`)).body.data.stock).toBe(2);

    const fulfilled = await api('POST', `/orders/${shipMe.order_id}/fulfil`, {
      carrier: 'DHL',
      tracking_number: 'JD0001',
      tracking_url: 'https://track.example/JD0001',
    });
    expect(fulfilled.body.data).toMatchObject({ status: 'fulfilled', fulfilments: [{ carrier: 'DHL' }] });
    const late = await api('POST', `/orders/${shipMe.order_id}/cancel`, { reason: 'changed my mind' });
    expect([late.status, late.body.error?.code]).toEqual([409, 'ORDER_STATUS_CONFLICT']);
    expect((await api('POST', `/orders/${shipMe.order_id}/deliver`)).body.data.status).toBe('delivered');

    const cancelled = await api('POST', `/orders/${cancelMe.order_id}/cancel`, {
      reason: 'out of stock at the warehouse',
    });
    expect(cancelled.body.data).toMatchObject({
      status: 'cancelled',
      cancellation: { reason: 'out of stock at the warehouse', refund_id: expect.stringMatching(/^re_/) },
    });
    const again = await api('POST', `/orders/${cancelMe.order_id}/cancel`, { reason: 'again please' });
    expect([again.status, again.body.error?.code]).toEqual([409, 'ORDER_STATUS_CONFLICT']);
    const charge = (await api('GET', `/payments/charges/${cancelMe.charge_id}`)).body.data;
    expect([charge.refunded, charge.refunds.length]).toEqual([true, 1]);
    expect((await api('GET', `/products/${mug}`)).body.data.stock).toBe(2 + cancelMe.quantity);

    const types = ['order.created', 'order.fulfilled', 'order.delivered', 'order.cancelled'];
    const seen = () => new Set(rx.on('/orders').map((r) => r.body.event_type as string));
    expect(await eventually(async () => types.every((type) => seen().has(type)), 20_000)).toBe(true);
    const event = rx.on('/orders').find((r) => r.body.event_type === 'order.cancelled')!;
    expect(event.body.data).toMatchObject({ order_id: cancelMe.order_id, status: 'cancelled' });
    const paid = rx
      .on('/orders')
      .find((r) => r.body.event_type === 'payment.succeeded' && r.body.data.session_id === sessions[1]!.session_id);
    expect(paid?.body.data).toMatchObject({ product: { id: mug, type: 'physical' }, quantity: 2, variation: null });
  });
});
