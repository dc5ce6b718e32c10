import { PlatformError } from '@ppay/kernel';
import { SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (path: string) => `/api/v1/partner${path}`;
const headers = { 'x-api-key': SANDBOX_KEY };
const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/** An order as payments answers it on the wire (optional messages absent, as grpc-js hands them over). */
const wireOrder = {
  order_id: 'ord_1',
  status: 'paid',
  product: { id: 42, title: 'Mug', type: 'physical' },
  quantity: 2,
  amount: {
    customer_paid: ngn(950_000),
    merchant_gross: ngn(950_000),
    merchant_net: ngn(917_500),
    fees: { platform_fee: ngn(32_500), gateway_fee: ngn(0), total: ngn(32_500) },
  },
  shipping_address: { name: 'Ada Obi', line1: '1 Marina', city: 'Lagos', country: 'NG' },
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi' },
  charge_id: 'ch_1',
  session_id: 'cs_1',
  fulfilments: [],
  is_live: false,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-01T10:00:00.000Z',
};

const split = {
  operator_id: 1000,
  sub_merchant_id: 2000,
  commission_rate: '0.07',
  commission: ngn(66_500),
  sub_merchant_amount: ngn(883_500),
};

describe('order routes over a fake payments service', () => {
  it('lists with its filters, absent fields as null, a marketplace order with its split', async () => {
    const t = await testGateway({
      payments: {
        ListOrders: () => ({ orders: [wireOrder, { ...wireOrder, order_id: 'ord_2', split }], has_more: false }),
      },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: partner('/orders?status=paid&product_id=42&sub_merchant_id=2000&from=2026-11-01T00:00:00Z&limit=5'),
      headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      orders: [
        expect.objectContaining({
          order_id: 'ord_1',
          variation: null,
          split: null,
          cancellation: null,
          delivered_at: null,
          shipping_address: expect.objectContaining({ line2: null, phone: null }),
        }),
        expect.objectContaining({ order_id: 'ord_2', split }),
      ],
      has_more: false,
      next_cursor: null,
    });
    expect(t.calls[0]).toMatchObject({
      method: 'ListOrders',
      request: { status: 'paid', product_id: 42, sub_merchant_id: 2000, from: '2026-11-01T00:00:00Z', limit: 5 },
    });
  });

  it('gets, fulfils, delivers and cancels, passing the order id and body through', async () => {
    const fulfilment = { carrier: 'DHL', tracking_number: 'JD1', tracking_url: 'https://t.example/JD1' };
    const t = await testGateway({
      payments: {
        GetOrder: () => wireOrder,
        FulfilOrder: () => ({
          ...wireOrder,
          status: 'fulfilled',
          fulfilments: [{ ...fulfilment, fulfilled_at: '2026-11-02T10:00:00.000Z' }],
        }),
        DeliverOrder: () => ({ ...wireOrder, status: 'delivered', delivered_at: '2026-11-03T10:00:00.000Z' }),
        CancelOrder: () => ({
          ...wireOrder,
          status: 'cancelled',
          cancellation: { reason: 'out of stock', refund_id: 're_1', cancelled_at: '2026-11-02T10:00:00.000Z' },
        }),
      },
    });
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url: partner(url), headers, payload });
    expect((await call('GET', '/orders/ord_1')).json().data.order_id).toBe('ord_1');
    expect((await call('POST', '/orders/ord_1/fulfil', fulfilment)).json().data).toMatchObject({
      status: 'fulfilled',
      fulfilments: [fulfilment],
    });
    expect((await call('POST', '/orders/ord_1/deliver')).json().data.status).toBe('delivered');
    expect((await call('POST', '/orders/ord_1/cancel', { reason: 'out of stock' })).json().data).toMatchObject({
      status: 'cancelled',
      cancellation: { refund_id: 're_1' },
    });
    expect(t.calls.map((c) => [c.method, c.request])).toEqual([
      ['GetOrder', { order_id: 'ord_1' }],
      ['FulfilOrder', { order_id: 'ord_1', ...fulfilment }],
      ['DeliverOrder', { order_id: 'ord_1' }],
      ['CancelOrder', { order_id: 'ord_1', reason: 'out of stock' }],
    ]);
  });

  it("answers payments' refusals with their codes: 404 unknown order, 409 wrong status", async () => {
    const t = await testGateway({
      payments: {
        GetOrder: () => {
          throw new PlatformError('ORDER_NOT_FOUND', undefined, { param: 'order_id' });
        },
        CancelOrder: () => {
          throw new PlatformError(
            'ORDER_STATUS_CONFLICT',
            'The order is fulfilled; only a paid order can be cancelled',
            {
              param: 'order_id',
            },
          );
        },
      },
    });
    const missing = await t.app.inject({ method: 'GET', url: partner('/orders/ord_x'), headers });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    const late = await t.app.inject({
      method: 'POST',
      url: partner('/orders/ord_1/cancel'),
      headers,
      payload: { reason: 'too late' },
    });
    expect([late.statusCode, late.json().error.code]).toEqual([409, 'ORDER_STATUS_CONFLICT']);
  });

  it('refuses bad bodies and queries with 400 and no key with 401, calling nothing', async () => {
    const t = await testGateway({ payments: { ListOrders: () => ({ orders: [], has_more: false }) } });
    const bad = [
      { method: 'GET', url: '/orders?limit=101' },
      { method: 'GET', url: '/orders?status=shipped' },
      { method: 'GET', url: '/orders?sub_merchant_id=0' },
      { method: 'GET', url: `/orders?cursor=${'c'.repeat(201)}` },
      { method: 'POST', url: '/orders/ord_1/fulfil', payload: { carrier: 'DHL' } },
      { method: 'POST', url: '/orders/ord_1/fulfil', payload: { carrier: 'x'.repeat(101), tracking_number: '1' } },
      { method: 'POST', url: '/orders/ord_1/cancel', payload: { reason: 'no' } },
      { method: 'POST', url: '/orders/ord_1/cancel', payload: { reason: 'x'.repeat(501) } },
      { method: 'POST', url: '/orders/ord_1/cancel', payload: { reason: 'fine reason', extra: 1 } },
      { method: 'GET', url: `/orders/${'o'.repeat(65)}` },
    ] as const;
    for (const b of bad) {
      const res = await t.app.inject({
        method: b.method,
        url: partner(b.url),
        headers,
        payload: 'payload' in b ? b.payload : undefined,
      });
      expect([b.url, res.statusCode]).toEqual([b.url, 400]);
    }
    const anonymous = await t.app.inject({ method: 'GET', url: partner('/orders') });
    expect(anonymous.statusCode).toBe(401);
    expect(t.calls).toEqual([]);
  });
});
