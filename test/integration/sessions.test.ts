import { newRequestId } from '@ppay/kernel';
import { callerToMetadata, ServiceClient } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/** Spec 2.3, 3.1, 4.2, 4.3: hosted checkout sessions through the real stack. */
describe('payment sessions', () => {
  let t: TestPlatform;
  let ngn: Awaited<ReturnType<TestPlatform['merchant']>>;
  const create = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    http(t.url, 'POST', '/api/v1/partner/payments/sessions', { headers: { 'x-api-key': key, ...headers }, body });
  const get = (key: string, id: string) =>
    http(t.url, 'GET', `/api/v1/partner/payments/sessions/${id}`, { headers: { 'x-api-key': key } });
  const base = {
    amount: 500_000,
    currency: 'NGN',
    product_name: 'Pro plan',
    customer: { email: 'ada@example.com' },
    success_url: 'https://shop.example.com/thanks',
    cancel_url: 'https://shop.example.com/cart',
  };

  beforeAll(async () => {
    t = await startTestPlatform('sessions');
    ngn = await t.merchant({ country: 'NG', currency: 'NGN' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('creates a session with exactly the fields of spec 2.3 / 4.2', async () => {
    const before = Date.now();
    const res = await create(ngn.api_key, { ...base, metadata: { order: 'A-1', qty: 2, gift: false } });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(
      [
        'amount',
        'currency',
        'expires_at',
        'fee_details',
        'gateway_session_id',
        'mode',
        'payment_type',
        'payment_url',
        'session_id',
        'status',
      ].sort(),
    );
    expect(d.session_id).toMatch(/^cs_[A-Za-z0-9]{32}$/);
    expect(d.gateway_session_id).toMatch(/^sbx_naira_/);
    expect(d.payment_url).toBe(`${t.url}/checkout/${d.session_id}`);
    expect(d).toMatchObject({
      amount: 500_000,
      currency: 'NGN',
      status: 'pending',
      mode: 'sandbox',
      payment_type: 'one_time',
    });
    // By default the merchant absorbs the 1.5% + ₦100 fee (account-settings.test.ts: the other way).
    expect(d.fee_details).toEqual({
      base_product_price: 500_000,
      transaction_fee: 17_500,
      total_amount: 500_000,
      customer_pays_fees: false,
    });
    // Stored as sessions always were: fee details in minor units of the session currency.
    const sessions = (await t.db('payments')).collection('sessions');
    expect(await sessions.findOne({ _id: d.session_id as unknown as never })).toMatchObject({
      amount: { amount: 500_000, currency: 'NGN' },
      fee_details: { base_product_price: 500_000, transaction_fee: 17_500, total_amount: 500_000 },
    });
    // Default lifetime 30 minutes (spec 8).
    const lifetime = Date.parse(d.expires_at) - before;
    expect(lifetime).toBeGreaterThan(30 * 60_000 - 5_000);
    expect(lifetime).toBeLessThanOrEqual(30 * 60_000 + 1_000);
  });

  it('gets its own session with exactly the fields of spec 4.3', async () => {
    const created = (await create(ngn.api_key, base)).body.data;
    const res = await get(ngn.api_key, created.session_id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      session_id: created.session_id,
      status: 'pending',
      amount: 500_000,
      currency: 'NGN',
      payment_type: 'one_time',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      completed_at: null,
    });
  });

  it("another merchant's session (or one of the other mode) is 404", async () => {
    const created = (await create(ngn.api_key, base)).body.data;
    const other = await t.merchant({ country: 'NG', currency: 'NGN' });
    const res = await get(other.api_key, created.session_id);
    expect([res.status, res.body.error.code]).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(res.body.message).toBe('Checkout session not found');
    const missing = await get(ngn.api_key, 'cs_doesnotexist');
    expect(missing.status).toBe(404);
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': ngn.user_token },
      body: { mode: 'live' },
    });
    expect((await get(live.body.data.api_key, created.session_id)).status).toBe(404);
  });

  describe('validation', () => {
    const { amount: _a, ...withoutAmount } = base;
    const { product_name: _p, ...withoutProduct } = base;
    it.each([
      ['amount missing', withoutAmount, 422, 'amount is required', 'amount'],
      ['currency missing', { ...base, currency: undefined }, 400, 'Missing required fields', 'currency'],
      ['customer.email missing', { ...base, customer: {} }, 400, 'Missing required fields', 'customer.email'],
      ['customer missing', { ...base, customer: undefined }, 400, 'Missing required fields', 'customer.email'],
      ['neither product_id nor product_name', withoutProduct, 400, 'Missing required fields', 'product_name'],
      ['blank product_name', { ...base, product_name: '  ' }, 400, 'Missing required fields', 'product_name'],
      [
        'relative success_url',
        { ...base, success_url: '/thanks' },
        400,
        'success_url must be an absolute http(s) URL',
        'success_url',
      ],
      [
        'javascript: cancel_url',
        { ...base, cancel_url: 'javascript:alert(1)' },
        400,
        'cancel_url must be an absolute http(s) URL',
        'cancel_url',
      ],
      [
        'URL with credentials',
        { ...base, success_url: 'https://u:p@shop.example.com/' },
        400,
        'success_url must not contain credentials',
        'success_url',
      ],
      ['unknown currency', { ...base, currency: 'ABC' }, 400, 'Unknown currency ABC', 'currency'],
      ['currency no gateway takes', { ...base, currency: 'JPY' }, 400, undefined, 'currency'],
      ['fractional amount', { ...base, amount: 10.5 }, 400, undefined, 'amount'],
      ['zero amount', { ...base, amount: 0 }, 400, undefined, 'amount'],
      [
        'bad e-mail',
        { ...base, customer: { email: 'nope' } },
        400,
        'customer.email is not a valid e-mail address',
        'customer.email',
      ],
      [
        'unknown frequency',
        { ...base, subscription_frequency_key: 'daily' },
        400,
        undefined,
        'subscription_frequency_key',
      ],
      ['nested metadata', { ...base, metadata: { a: { b: 1 } } }, 422, 'Metadata validation failed', 'metadata.a'],
      [
        'unknown product_id',
        { ...base, product_name: undefined, product_id: 987_654 },
        404,
        'Product not found',
        'product_id',
      ],
    ])('%s', async (_name, body, status, message, param) => {
      const res = await create(ngn.api_key, body);
      expect([res.status, res.body.success, res.body.error?.param]).toEqual([status, false, param]);
      if (message) expect(res.body.message).toBe(message);
    });
    it('JPY is refused with UNSUPPORTED_CURRENCY naming the supported ones', async () => {
      const res = await create(ngn.api_key, { ...base, currency: 'JPY' });
      expect(res.body.error.code).toBe('UNSUPPORTED_CURRENCY');
      expect(res.body.message).toContain('NGN');
    });
  });

  it('a catalogue product_id supplies the name; subscription_frequency_key makes a subscription session', async () => {
    const fx = new ServiceClient<types.fxpricing.FxPricingServiceClient>(
      'fx-pricing',
      loadPlatformProto().ppay.fxpricing.v1.FxPricingService,
      t.platform.grpcAddress('fx-pricing'),
      { deadlineMs: 5_000 },
    );
    try {
      const product = await fx.call(
        'UpsertProduct',
        {
          merchant_id: ngn.merchant_id,
          name: 'Course: <b>Go</b>',
          type: 'digital',
          base_price: { amount: 250_000, currency: 'NGN' },
        },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal' }),
      );
      const res = await create(ngn.api_key, {
        ...base,
        product_name: undefined,
        product_id: product.id,
        subscription_frequency_key: 'quarterly',
      });
      expect(res.status).toBe(200);
      expect(res.body.data.payment_type).toBe('subscription');
      const stored = await (
        await t.db('payments')
      )
        .collection('sessions')
        .findOne({ _id: res.body.data.session_id as unknown as never });
      expect(stored).toMatchObject({
        product: { id: product.id, name: 'Course: <b>Go</b>', type: 'digital' },
        subscription_frequency_key: 'quarterly',
        payment_type: 'subscription',
      });
      // Another merchant cannot use it.
      const other = await t.merchant({ country: 'NG', currency: 'NGN' });
      const foreign = await create(other.api_key, { ...base, product_name: undefined, product_id: product.id });
      expect([foreign.status, foreign.body.error.code]).toEqual([404, 'PRODUCT_NOT_FOUND']);
    } finally {
      fx.close();
    }
  });

  it('fee_details for a card currency; the amount includes the fee only when the customer pays fees', async () => {
    const usd = await t.merchant({ country: 'US', currency: 'USD' });
    const res = await create(usd.api_key, { ...base, amount: 10_000, currency: 'USD' });
    expect(res.status).toBe(200);
    // 2.9% + 30¢, absorbed by the merchant (customer_pays_fees is false today): amount stays 10 000.
    expect(res.body.data).toMatchObject({ amount: 10_000, currency: 'USD' });
    expect(res.body.data.fee_details).toEqual({
      base_product_price: 10_000,
      transaction_fee: 320,
      total_amount: 10_000,
      customer_pays_fees: false,
    });
    expect(res.body.data.gateway_session_id).toMatch(/^sbx_card_/);
    // When the customer pays fees the session amount is the total (spec 2.3). No merchant has the flag
    // today; set it in payments' merchant projection for a fresh merchant, before payments first reads it.
    const payer = await t.merchant({ country: 'US', currency: 'USD' });
    const profiles = (await t.db('payments')).collection('merchant_profiles');
    const profileOf = () => profiles.findOne({ _id: payer.merchant_id as unknown as never });
    expect(await eventually(async () => (await profileOf()) !== null, 10_000)).toBe(true);
    await profiles.updateOne({ _id: payer.merchant_id as unknown as never }, { $set: { customer_pays_fees: true } });
    const paid = await create(payer.api_key, { ...base, amount: 10_000, currency: 'USD' });
    expect(paid.body.data.amount).toBe(10_320);
    expect(paid.body.data.fee_details).toEqual({
      base_product_price: 10_000,
      transaction_fee: 320,
      total_amount: 10_320,
      customer_pays_fees: true,
    });
  });

  it('Idempotency-Key replays the same session; a different body with the key is refused', async () => {
    const key = `idem-${Date.now()}`;
    const first = await create(ngn.api_key, base, { 'idempotency-key': key });
    const again = await create(ngn.api_key, base, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.session_id).toBe(first.body.data.session_id);
    const other = await create(ngn.api_key, { ...base, amount: 1 }, { 'idempotency-key': key });
    expect([other.status, other.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const count = await (
      await t.db('payments')
    )
      .collection('sessions')
      .countDocuments({ merchant_id: ngn.merchant_id, idempotency_key: key });
    expect(count).toBe(1);
  });

  it('live keys cannot create sessions until a live gateway exists', async () => {
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': ngn.user_token },
      body: { mode: 'live' },
    });
    const res = await create(live.body.data.api_key, base);
    expect([res.status, res.body.error.code]).toEqual([422, 'GATEWAY_NOT_CONFIGURED']);
  });
});

describe('session expiry (spec 3.1: expired past expires_at, whether or not anyone polls)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform('sessions-expiry', {
      envFor: { payments: { SESSION_TTL_MS: '1500', SESSION_SWEEP_INTERVAL_MS: '200' } },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('the sweeper persists expired without any GET; GET reports it; paying is refused', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    const res = await http(t.url, 'POST', '/api/v1/partner/payments/sessions', {
      headers: { 'x-api-key': m.api_key },
      body: { amount: 100_000, currency: 'NGN', product_name: 'Short', customer: { email: 'c@example.com' } },
    });
    expect(res.status).toBe(200);
    const id = res.body.data.session_id as string;
    expect(Date.parse(res.body.data.expires_at) - Date.parse(new Date().toISOString())).toBeLessThanOrEqual(1_500);
    const sessions = (await t.db('payments')).collection('sessions');
    const stored = async () => (await sessions.findOne({ _id: id as unknown as never }))?.status;
    expect(await stored()).toBe('pending');
    // Nobody polls the API: the service's own sweeper writes the state.
    expect(await eventually(async () => (await stored()) === 'expired', 6_000, 100)).toBe(true);
    const got = await http(t.url, 'GET', `/api/v1/partner/payments/sessions/${id}`, {
      headers: { 'x-api-key': m.api_key },
    });
    expect(got.body.data).toMatchObject({ status: 'expired', completed_at: null });
    const pay = await http(t.url, 'POST', `/checkout/${id}/pay`, {
      body: { card_number: '4242424242424242', expiry: '12/34', cvc: '123' },
    });
    expect(pay.status).toBe(410);
    expect(pay.body).toContain('This checkout session has expired');
    expect(await stored()).toBe('expired');
  });
});
