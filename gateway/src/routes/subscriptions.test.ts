import { PlatformError } from '@ppay/kernel';
import { LIVE_KEY, SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };

/** What the subscriptions service sends: proto3 optionals absent when null, periods as messages. */
const wireSubscription = {
  id: 'sub_1',
  product_id: 3,
  product_name: 'Bread club',
  customer_email: 'ada@example.com',
  amount: { amount: 500000, currency: 'NGN' },
  frequency: 'monthly',
  status: 'active',
  payment_status: 'paid',
  next_payment_date: '2026-02-28T10:00:00.000Z',
  created_at: '2026-01-31T10:00:00.000Z',
  current_period: { index: 0, start: '2026-01-31T10:00:00.000Z', end: '2026-02-28T10:00:00.000Z' },
  access_until: '2026-02-28T10:00:00.000Z',
  cancel_at_period_end: false,
  attempts_left: 4,
  failed_attempts: 0,
  last_payment_at: '2026-01-31T10:00:00.000Z',
  checkout_session_id: 'cs_1',
  mode: 'sandbox',
  clock: '2026-01-31T10:00:00.000Z',
  internal_field_never_sent: 'x',
};

describe('subscription routes (spec 4.5, 4.6 and beyond) over a fake service', () => {
  it('lists with the spec defaults, passes filters through, and serialises absent optionals as null', async () => {
    const t = await testGateway({
      subscriptions: {
        ListSubscriptions: () => ({ subscriptions: [wireSubscription], total: 1, limit: 20, offset: 0 }),
      },
    });
    const res = await t.app.inject({ method: 'GET', url: partner('/subscriptions'), headers });
    expect(res.statusCode).toBe(200);
    expect(t.calls[0]).toMatchObject({
      method: 'ListSubscriptions',
      merchantId: '1000',
      mode: 'sandbox',
      request: { limit: 20, offset: 0, sort_by: 'created_at', sort_order: 'DESC' },
    });
    const item = res.json().data.subscriptions[0];
    expect(item).toMatchObject({
      id: 'sub_1',
      product_id: 3,
      amount: 500000,
      currency: 'NGN',
      cancelled_at: null,
      trial: null,
      next_retry_at: null,
      decline_reason: null,
    });
    expect(item).not.toHaveProperty('internal_field_never_sent');
    await t.app.inject({
      method: 'GET',
      url: partner('/subscriptions?status=due&product_id=3&limit=100&offset=40&sort_by=next_payment&sort_order=ASC'),
      headers,
    });
    expect(t.calls[1]!.request).toEqual({
      status: 'due',
      product_id: 3,
      limit: 100,
      offset: 40,
      sort_by: 'next_payment',
      sort_order: 'ASC',
    });
  });

  it.each([
    ['status=done', 'status'],
    ['product_id=abc', 'product_id'],
    ['product_id=0', 'product_id'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=10001', 'offset'],
    ['sort_by=amount', 'sort_by'],
    ['sort_order=asc', 'sort_order'],
  ])('GET /subscriptions?%s → 400 naming %s, without calling the service', async (query, param) => {
    const t = await testGateway();
    const res = await t.app.inject({ method: 'GET', url: partner(`/subscriptions?${query}`), headers });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_FAILED', param });
    expect(t.calls).toEqual([]);
  });

  it('cancel answers id, status and cancelled_at; at_period_end is passed through; 404 for another merchant', async () => {
    const t = await testGateway({
      subscriptions: {
        CancelSubscription: (req: { subscription_id: string; at_period_end: boolean }) => {
          if (req.subscription_id === 'sub_other') throw new PlatformError('SUBSCRIPTION_NOT_FOUND');
          return req.at_period_end
            ? { id: 'sub_1', status: 'active', cancel_at_period_end: true, cancel_at: '2026-02-28T10:00:00.000Z' }
            : {
                id: 'sub_1',
                status: 'cancelled',
                cancelled_at: '2026-02-10T00:00:00.000Z',
                cancel_at_period_end: false,
              };
        },
      },
    });
    const now = await t.app.inject({ method: 'PATCH', url: partner('/subscriptions/sub_1/cancel'), headers });
    expect(now.json()).toEqual({
      success: true,
      data: {
        id: 'sub_1',
        status: 'cancelled',
        cancelled_at: '2026-02-10T00:00:00.000Z',
        cancel_at_period_end: false,
        cancel_at: null,
      },
    });
    const later = await t.app.inject({
      method: 'PATCH',
      url: partner('/subscriptions/sub_1/cancel?at_period_end=true'),
      headers,
    });
    expect(later.json().data).toMatchObject({ status: 'active', cancelled_at: null, cancel_at_period_end: true });
    expect(t.calls.map((c) => c.request.at_period_end)).toEqual([false, true]);
    const other = await t.app.inject({ method: 'PATCH', url: partner('/subscriptions/sub_other/cancel'), headers });
    expect([other.statusCode, other.json().error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
  });

  it('pause, resume, get and the sandbox helpers reach their RPCs', async () => {
    const t = await testGateway({
      subscriptions: {
        GetSubscription: () => wireSubscription,
        PauseSubscription: () => ({ ...wireSubscription, status: 'paused', pause_reason: 'merchant' }),
        ResumeSubscription: () => wireSubscription,
        AdvanceSandboxClock: () => ({ ...wireSubscription, clock: '2027-01-31T10:00:00.000Z' }),
        CreateSandboxSubscription: () => wireSubscription,
      },
    });
    const send = (method: 'GET' | 'PATCH' | 'POST', url: string, payload?: Record<string, unknown>) =>
      payload === undefined
        ? t.app.inject({ method, url: partner(url), headers })
        : t.app.inject({ method, url: partner(url), headers, payload });
    expect((await send('GET', '/subscriptions/sub_1')).json().data.id).toBe('sub_1');
    expect((await send('PATCH', '/subscriptions/sub_1/pause')).json().data.pause_reason).toBe('merchant');
    expect((await send('PATCH', '/subscriptions/sub_1/resume')).statusCode).toBe(200);
    const advanced = await send('POST', '/sandbox/subscriptions/sub_1/advance', { to: '2027-01-31T10:00:00Z' });
    expect(advanced.json().data.clock).toBe('2027-01-31T10:00:00.000Z');
    expect((await send('POST', '/sandbox/subscriptions/sub_1/advance', { to: 'x'.repeat(41) })).statusCode).toBe(400);
    const created = await send('POST', '/sandbox/subscriptions', {
      amount: 1000,
      currency: 'USD',
      customer: { email: 'b@example.com' },
      subscription_frequency_key: 'weekly',
      card_number: '4242 4242 4242 4242',
    });
    expect(created.statusCode).toBe(200);
    expect(t.calls[4]!.request).toEqual({
      amount: { amount: 1000, currency: 'USD' },
      customer: { email: 'b@example.com' },
      subscription_frequency_key: 'weekly',
      card_number: '4242 4242 4242 4242',
    });
    const bad = await send('POST', '/sandbox/subscriptions', {
      amount: 1000,
      currency: 'USD',
      customer: { email: 'b@example.com' },
      subscription_frequency_key: 'daily',
      card_number: '4242 4242 4242 4242',
    });
    expect([bad.statusCode, bad.json().error.param]).toEqual([400, 'subscription_frequency_key']);
    expect(t.calls.map((c) => c.method)).toEqual([
      'GetSubscription',
      'PauseSubscription',
      'ResumeSubscription',
      'AdvanceSandboxClock',
      'CreateSandboxSubscription',
    ]);
  });

  it('refuses live keys on sandbox helpers with 403 before reading the body, calling no service', async () => {
    const t = await testGateway({ subscriptions: { AdvanceSandboxClock: () => ({}) } });
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/subscriptions/sub_1/advance'),
      headers: { 'x-api-key': LIVE_KEY },
      payload: { to: 'not a time', extra: true },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'Sandbox test helpers are only available with sandbox keys',
    });
    expect(t.calls).toEqual([]);
  });
});
