import { PlatformError } from '@ppay/kernel';
import { LIVE_KEY, SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };
const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/** What subscriptions sends for a plan with part 2 paid and part 3 due: proto3 optionals absent when null. */
const wirePlan = {
  id: 'ip_1',
  status: 'active',
  product_id: 3,
  product_name: 'Laptop',
  product_type: 'physical',
  customer_email: 'ada@example.com',
  total: ngn(300_001),
  amount_paid: ngn(200_001),
  amount_remaining: ngn(100_000),
  count: 3,
  interval: 'monthly',
  parts: [
    {
      number: 1,
      amount: ngn(100_001),
      due_at: '2026-01-31T10:00:00.000Z',
      status: 'paid',
      charge_id: 'ch_1',
      paid_at: '2026-01-31T10:00:00.000Z',
      failed_attempts: 0,
    },
    {
      number: 2,
      amount: ngn(100_000),
      due_at: '2026-02-28T10:00:00.000Z',
      status: 'paid',
      charge_id: 'ch_2',
      paid_at: '2026-02-28T10:00:00.000Z',
      failed_attempts: 1,
      decline_reason: 'insufficient_funds',
    },
    { number: 3, amount: ngn(100_000), due_at: '2026-03-31T10:00:00.000Z', status: 'scheduled', failed_attempts: 0 },
  ],
  next_payment_date: '2026-03-31T10:00:00.000Z',
  card: { brand: 'visa', last4: '4242' },
  checkout_session_id: 'cs_1',
  created_at: '2026-01-31T10:00:00.000Z',
  mode: 'sandbox',
  clock: '2026-03-01T00:00:00.000Z',
  internal_field_never_sent: 'x',
};

describe('installment plan routes (issue 26) over a fake subscriptions service', () => {
  it('lists with the defaults, passes filters and the cursor, and flattens money in the spec style', async () => {
    const t = await testGateway({
      subscriptions: {
        ListInstallmentPlans: () => ({ installment_plans: [wirePlan], has_more: true, next_cursor: 'abc' }),
      },
    });
    const res = await t.app.inject({ method: 'GET', url: partner('/installment-plans'), headers });
    expect(res.statusCode).toBe(200);
    expect(t.calls[0]).toMatchObject({
      method: 'ListInstallmentPlans',
      merchantId: '1000',
      mode: 'sandbox',
      request: { limit: 20 },
    });
    const { installment_plans: items, has_more, next_cursor } = res.json().data;
    expect([has_more, next_cursor]).toEqual([true, 'abc']);
    expect(items[0]).toMatchObject({
      id: 'ip_1',
      amount: 300_001,
      currency: 'NGN',
      amount_paid: 200_001,
      amount_remaining: 100_000,
      completed_at: null,
      cancelled_at: null,
      defaulted_at: null,
      default_reason: null,
    });
    expect(items[0].parts[2]).toEqual({
      number: 3,
      amount: 100_000,
      currency: 'NGN',
      due_at: '2026-03-31T10:00:00.000Z',
      status: 'scheduled',
      charge_id: null,
      paid_at: null,
      failed_attempts: 0,
      next_retry_at: null,
      decline_reason: null,
    });
    expect(items[0]).not.toHaveProperty('internal_field_never_sent');
    await t.app.inject({
      method: 'GET',
      url: partner(
        '/installment-plans?status=defaulted&customer_email=ada%40example.com&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&limit=100&cursor=abc',
      ),
      headers,
    });
    expect(t.calls[1]!.request).toEqual({
      status: 'defaulted',
      customer_email: 'ada@example.com',
      from: '2026-01-01T00:00:00Z',
      to: '2026-02-01T00:00:00Z',
      limit: 100,
      cursor: 'abc',
    });
  });

  it.each([
    ['status=paused', 'status'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['from=yesterday', 'from'],
    ['to=2026-02-01', 'to'],
    [`customer_email=${'a'.repeat(255)}`, 'customer_email'],
    [`cursor=${'c'.repeat(201)}`, 'cursor'],
    ['sort_by=amount', 'sort_by'],
  ])('GET /installment-plans?%s → 400 naming %s, without calling the service', async (query, param) => {
    const t = await testGateway();
    const res = await t.app.inject({ method: 'GET', url: partner(`/installment-plans?${query}`), headers });
    expect(res.statusCode).toBe(400);
    // A cursor the schema refuses is no cursor this API issued: the services' own code.
    expect(res.json().error).toMatchObject({ code: param === 'cursor' ? 'INVALID_CURSOR' : 'VALIDATION_FAILED' });
    expect(res.json().error.param ?? res.json().error.message).toContain(param);
    expect(t.calls).toEqual([]);
  });

  it('the service’s own answers reach the partner: an unknown cursor, another merchant’s plan, a finished plan', async () => {
    const t = await testGateway({
      subscriptions: {
        ListInstallmentPlans: () => {
          throw new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' });
        },
        GetInstallmentPlan: (req: { plan_id: string }) => {
          if (req.plan_id !== 'ip_1')
            throw new PlatformError('INSTALLMENT_PLAN_NOT_FOUND', undefined, { param: 'plan_id' });
          return wirePlan;
        },
        CancelInstallmentPlan: () => {
          throw new PlatformError('CONFLICT', 'Installment plan is completed; cannot cancel', { param: 'plan_id' });
        },
      },
    });
    const cursor = await t.app.inject({ method: 'GET', url: partner('/installment-plans?cursor=zzz'), headers });
    expect([cursor.statusCode, cursor.json().error.code]).toEqual([400, 'INVALID_CURSOR']);
    const mine = await t.app.inject({ method: 'GET', url: partner('/installment-plans/ip_1'), headers });
    expect([mine.statusCode, mine.json().data.id]).toEqual([200, 'ip_1']);
    const other = await t.app.inject({ method: 'GET', url: partner('/installment-plans/ip_2'), headers });
    expect([other.statusCode, other.json().error.code]).toEqual([404, 'INSTALLMENT_PLAN_NOT_FOUND']);
    const cancel = await t.app.inject({ method: 'POST', url: partner('/installment-plans/ip_1/cancel'), headers });
    expect([cancel.statusCode, cancel.json().error.code]).toEqual([409, 'CONFLICT']);
    const long = await t.app.inject({ method: 'GET', url: partner(`/installment-plans/${'x'.repeat(65)}`), headers });
    expect(long.statusCode).toBe(400);
  });

  it('cancel answers the cancelled plan; the sandbox clock gets 60 s and its body is checked', async () => {
    const t = await testGateway({
      subscriptions: {
        CancelInstallmentPlan: () => ({ ...wirePlan, status: 'cancelled', cancelled_at: '2026-03-01T00:00:00.000Z' }),
        AdvanceInstallmentPlanClock: () => ({ ...wirePlan, status: 'completed', clock: '2026-04-01T00:00:00.000Z' }),
      },
    });
    const cancelled = await t.app.inject({ method: 'POST', url: partner('/installment-plans/ip_1/cancel'), headers });
    expect(cancelled.json().data).toMatchObject({ status: 'cancelled', cancelled_at: '2026-03-01T00:00:00.000Z' });
    const advanced = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/installment-plans/ip_1/advance'),
      headers,
      payload: { to: '2026-04-01T00:00:00Z' },
    });
    expect(advanced.json().data).toMatchObject({ status: 'completed', clock: '2026-04-01T00:00:00.000Z' });
    expect(t.calls[1]).toMatchObject({
      method: 'AdvanceInstallmentPlanClock',
      request: { plan_id: 'ip_1', to: '2026-04-01T00:00:00Z' },
      deadlineMs: 60_000,
    });
    for (const payload of [{ to: 'tomorrow' }, { to: 'x'.repeat(41) }, {}, { to: '2026-04-01T00:00:00Z', extra: 1 }]) {
      const bad = await t.app.inject({
        method: 'POST',
        url: partner('/sandbox/installment-plans/ip_1/advance'),
        headers,
        payload,
      });
      expect([JSON.stringify(payload), bad.statusCode]).toEqual([JSON.stringify(payload), 400]);
    }
    expect(t.calls).toHaveLength(2);
  });

  it('authentication comes first; live keys are refused on the sandbox helper (403) before the body, calling nothing', async () => {
    const t = await testGateway();
    const anonymous = await t.app.inject({ method: 'GET', url: partner('/installment-plans?limit=0') });
    expect(anonymous.statusCode).toBe(401);
    const live = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/installment-plans/ip_1/advance'),
      headers: { 'x-api-key': LIVE_KEY },
      payload: { to: 'not a date' },
    });
    expect([live.statusCode, live.json().error.code]).toEqual([403, 'PERMISSION_DENIED']);
    expect(t.calls).toEqual([]);
  });
});

describe('POST /payments/sessions with installments', () => {
  const body = {
    amount: 300_001,
    currency: 'NGN',
    product_name: 'Laptop',
    customer: { email: 'ada@example.com' },
    installments: { count: 3, interval: 'monthly' },
  };
  const quote = (number: number, base: number, due: string) => ({
    number,
    base: ngn(base),
    fee: ngn(1_500),
    total: ngn(base + 1_500),
    due_at: due,
  });
  const wireSession = {
    session_id: 'cs_1',
    gateway_session_id: 'gw_1',
    expires_at: '2026-01-31T10:30:00.000Z',
    amount: ngn(101_501),
    status: 'pending',
    mode: 'sandbox',
    payment_type: 'installment',
    fee_details: { base: ngn(100_001), fee: ngn(1_500), total: ngn(101_501), customer_pays_fees: true },
    created_at: '2026-01-31T10:00:00.000Z',
    installments: {
      plan_id: 'ip_1',
      count: 3,
      interval: 'monthly',
      total: ngn(300_001),
      schedule: [
        quote(1, 100_001, '2026-01-31T10:00:00.000Z'),
        quote(2, 100_000, '2026-02-28T10:00:00.000Z'),
        quote(3, 100_000, '2026-03-31T10:00:00.000Z'),
      ],
    },
  };

  it('passes the terms to payments and answers the schedule (first part now, in the customer currency)', async () => {
    const t = await testGateway({ payments: { CreateSession: () => wireSession } });
    const res = await t.app.inject({ method: 'POST', url: partner('/payments/sessions'), headers, payload: body });
    expect(res.statusCode).toBe(200);
    expect(t.calls[0]!.request).toMatchObject({
      amount: ngn(300_001),
      installments: { count: 3, interval: 'monthly' },
    });
    const data = res.json().data;
    expect(data).toMatchObject({ payment_type: 'installment', amount: 101_501, currency: 'NGN' });
    expect(data.installments).toEqual({
      plan_id: 'ip_1',
      count: 3,
      interval: 'monthly',
      amount: 300_001,
      currency: 'NGN',
      schedule: [
        {
          number: 1,
          amount: 100_001,
          transaction_fee: 1_500,
          total_amount: 101_501,
          due_at: '2026-01-31T10:00:00.000Z',
        },
        {
          number: 2,
          amount: 100_000,
          transaction_fee: 1_500,
          total_amount: 101_500,
          due_at: '2026-02-28T10:00:00.000Z',
        },
        {
          number: 3,
          amount: 100_000,
          transaction_fee: 1_500,
          total_amount: 101_500,
          due_at: '2026-03-31T10:00:00.000Z',
        },
      ],
    });
  });

  it('a one-time session has no installments field (exactly the spec fields)', async () => {
    const { installments: _i, ...oneTime } = wireSession;
    const t = await testGateway({ payments: { CreateSession: () => ({ ...oneTime, payment_type: 'one_time' }) } });
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/payments/sessions'),
      headers,
      payload: { ...body, installments: undefined },
    });
    expect(res.json().data).not.toHaveProperty('installments');
  });

  it.each([
    [{ count: 1, interval: 'monthly' }],
    [{ count: 13, interval: 'monthly' }],
    [{ count: 3, interval: 'daily' }],
    [{ count: 3 }],
    [{ count: 3, interval: 'monthly', start: 'now' }],
    ['3x monthly'],
  ])('installments %j → 400 without calling payments', async (installments) => {
    const t = await testGateway();
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/payments/sessions'),
      headers,
      payload: { ...body, installments },
    });
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(t.calls).toEqual([]);
  });

  it('a product that does not allow installments: 400 INSTALLMENTS_NOT_ALLOWED from payments', async () => {
    const t = await testGateway({
      payments: {
        CreateSession: () => {
          throw new PlatformError('INSTALLMENTS_NOT_ALLOWED', undefined, { param: 'installments' });
        },
      },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/payments/sessions'),
      headers,
      payload: { ...body, product_name: undefined, product_id: 7 },
    });
    expect([res.statusCode, res.json().error.code, res.json().error.param]).toEqual([
      400,
      'INSTALLMENTS_NOT_ALLOWED',
      'installments',
    ]);
  });
});
