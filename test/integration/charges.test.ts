import { http, startTestPlatform, type TestPlatform } from '../support/platform';

/** Spec 4.1 and 7.1: one-time charges, previews and idempotency, through the real stack. */
describe('POST /payments/charge', () => {
  let t: TestPlatform;
  let ngn: Awaited<ReturnType<TestPlatform['merchant']>>;
  let usd: Awaited<ReturnType<TestPlatform['merchant']>>;
  const charge = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    http(t.url, 'POST', '/api/v1/partner/payments/charge', { headers: { 'x-api-key': key, ...headers }, body });
  const base = {
    amount: 500_000,
    currency: 'NGN',
    total_amount: 500_000,
    total_currency: 'NGN',
    customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi', country: 'NG' },
  };
  const chargeCount = async () => (await t.db('payments')).collection('charges').countDocuments();

  beforeAll(async () => {
    t = await startTestPlatform('charges');
    ngn = await t.merchant({ country: 'NG', currency: 'NGN' });
    usd = await t.merchant({ country: 'US', currency: 'USD' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('every row of spec 7.1 that needs no conversion', () => {
    const { amount: _a, ...withoutAmount } = base;
    const { total_amount: _t, total_currency: _tc, ...withoutTotal } = base;
    it.each([
      ['amount missing', withoutAmount, 422, 'amount is required'],
      ['currency missing', { ...base, currency: undefined }, 400, 'Missing required fields'],
      ['customer.email missing', { ...base, customer: { first_name: 'Ada' } }, 400, 'Missing required fields'],
      ['customer missing', { ...base, customer: undefined }, 400, 'Missing required fields'],
      ['total_amount / total_currency missing', withoutTotal, 422, 'Missing total_amount / total_currency'],
      [
        'only converted_total_amount',
        { ...base, converted_total_amount: 500_000 },
        400,
        'Both converted_total_amount and converted_total_currency must be provided together',
      ],
      [
        'only converted_total_currency',
        { ...base, converted_total_currency: 'NGN' },
        400,
        'Both converted_total_amount and converted_total_currency must be provided together',
      ],
      [
        'converted_total_currency ≠ currency',
        { ...base, converted_total_amount: 500_000, converted_total_currency: 'USD' },
        400,
        'converted_total_currency must match the charge currency',
      ],
      ['amount ≠ total_amount without conversion', { ...base, amount: 499_999 }, 400, 'Amount mismatch'],
      ['nested metadata', { ...base, metadata: { order: { id: 1 } } }, 422, 'Metadata validation failed'],
      ['array metadata', { ...base, metadata: { tags: ['a'] } }, 422, 'Metadata validation failed'],
    ])('%s → %i %s', async (_name, body, status, message) => {
      const before = await chargeCount();
      const res = await charge(ngn.api_key, body);
      expect([res.status, res.body.message]).toEqual([status, message]);
      expect(res.body.success).toBe(false);
      expect(await chargeCount()).toBe(before);
    });

    it('401 Invalid API key', async () => {
      const res = await charge('pk_sandbox_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', base);
      expect([res.status, res.body.message]).toEqual([401, 'Invalid API key']);
    });

    it('amounts must be integers, not strings or fractions', async () => {
      for (const amount of ['500000', 5000.5]) {
        const res = await charge(ngn.api_key, { ...base, amount, total_amount: amount });
        expect([res.status, res.body.error.code, res.body.error.param]).toEqual([400, 'VALIDATION_FAILED', 'amount']);
      }
    });

    it('a currency outside the three gateway groups gets a clear 400', async () => {
      const res = await charge(ngn.api_key, {
        ...base,
        currency: 'JPY',
        total_currency: 'JPY',
        amount: 1000,
        total_amount: 1000,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('UNSUPPORTED_CURRENCY');
      expect(res.body.message).toMatch(/JPY is not supported for charges/);
    });
  });

  describe('aliases and routing', () => {
    it('accepts original_product_amount / original_product_currency and redirect aliases', async () => {
      const { total_amount: _t, total_currency: _c, ...rest } = base;
      const res = await charge(ngn.api_key, {
        ...rest,
        original_product_amount: 500_000,
        original_product_currency: 'NGN',
        redirectUrl: 'https://shop.example/done',
        preview: true,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.business).toEqual({ currency: 'NGN', priced_amount: 500_000 });
    });

    it('routes NGN to the naira gateway and card currencies to the card gateway with form credentials', async () => {
      const naira = await charge(ngn.api_key, base);
      expect(naira.status).toBe(200);
      expect(naira.body.data).toMatchObject({ payment_gateway: 'naira_gateway', status: 'pending' });
      expect(naira.body.data.client_secret).toBeUndefined();
      expect(naira.body.data.charge_id).toMatch(/^ch_/);
      expect(naira.body.data.transaction_id).toMatch(/^txn_/);

      const card = await charge(usd.api_key, {
        ...base,
        amount: 10_000,
        total_amount: 10_000,
        currency: 'USD',
        total_currency: 'USD',
      });
      expect(card.status).toBe(200);
      expect(card.body.data).toMatchObject({
        payment_gateway: 'card_gateway',
        publishable_key: expect.any(String),
        gateway_account_id: `acct_sbx_${usd.merchant_id}`,
        fee_details: { base_amount: 10_000, transaction_fee: 320, total_amount: 10_000, customer_pays_fees: false },
      });
      expect(card.body.data.client_secret).toMatch(/_secret_/);
    });

    it('regional currencies go to the regional gateway', async () => {
      const res = await charge(ngn.api_key, {
        ...base,
        amount: 10_000,
        total_amount: 10_000,
        currency: 'GHS',
        total_currency: 'GHS',
        preview: true,
      });
      expect(res.body.data.payment_gateway).toBe('regional_gateway');
      expect(res.body.data.customer.transaction_fee).toBe(195);
    });

    it('a live key is never sent to a sandbox gateway: without a live adapter the charge is refused', async () => {
      const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
        headers: { 'x-id-key': ngn.user_token },
        body: { mode: 'live' },
      });
      const res = await charge(live.body.data.api_key, base);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('GATEWAY_NOT_CONFIGURED');
    });
  });

  describe('preview', () => {
    it('returns the breakdown, writes nothing and exposes no charge identifiers', async () => {
      const before = await chargeCount();
      const res = await charge(ngn.api_key, { ...base, preview: true, reference: 'preview-only-ref' });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Preview only: no charge was created');
      expect(res.body.data).toEqual({
        preview: true,
        payment_gateway: 'naira_gateway',
        mode: 'sandbox',
        is_international: false,
        business_country: 'NG',
        customer_country: 'NG',
        customer: {
          currency: 'NGN',
          base_amount: 500_000,
          transaction_fee: 17_500,
          total_charged: 500_000,
          pays_fees: false,
        },
        business: { currency: 'NGN', priced_amount: 500_000 },
      });
      for (const field of ['charge_id', 'client_secret', 'payment_url', 'transaction_id', 'conversion']) {
        expect(res.body.data[field]).toBeUndefined();
      }
      expect(await chargeCount()).toBe(before);
      // The reference was not consumed by the preview.
      const real = await charge(ngn.api_key, { ...base, reference: 'preview-only-ref' });
      expect(real.headers.get('idempotent-replayed')).toBeNull();
      expect(real.body.data.charge_id).toMatch(/^ch_/);
    });

    it('still runs every validation', async () => {
      const res = await charge(ngn.api_key, { ...base, amount: 1, preview: true });
      expect([res.status, res.body.message]).toEqual([400, 'Amount mismatch']);
    });
  });

  describe('customer country', () => {
    const previewCountry = async (
      extra: Record<string, unknown>,
      customer: Record<string, unknown> = { email: 'c@example.com' },
    ) => (await charge(ngn.api_key, { ...base, customer, preview: true, ...extra })).body.data;

    it('normalises names and codes from customer.country and the top-level aliases', async () => {
      expect((await previewCountry({}, { email: 'c@example.com', country: 'nigeria' })).customer_country).toBe('NG');
      expect((await previewCountry({ user_country: 'United Kingdom' })).customer_country).toBe('GB');
      expect((await previewCountry({ customer_country: 'gh' })).customer_country).toBe('GH');
      expect((await previewCountry({ country_code: 'KE' })).customer_country).toBe('KE');
      expect((await previewCountry({ metadata: { customer_country: 'South Africa' } })).customer_country).toBe('ZA');
    });

    it('falls back to billing then shipping country, and reports Unknown otherwise', async () => {
      expect((await previewCountry({ billing_country: 'US', shipping_country: 'GB' })).customer_country).toBe('US');
      expect((await previewCountry({ shipping_country: 'GB' })).customer_country).toBe('GB');
      expect((await previewCountry({ metadata: { shipping_country: 'France' } })).customer_country).toBe('FR');
      const unknown = await previewCountry({ user_country: 'Atlantis' });
      expect(unknown).toMatchObject({ customer_country: 'Unknown', is_international: false });
      expect((await previewCountry({ user_country: 'GB' })).is_international).toBe(true);
    });
  });

  describe('idempotency', () => {
    it('a repeated reference returns the original charge, not a second one', async () => {
      const body = { ...base, reference: `order-${Date.now()}` };
      const first = await charge(ngn.api_key, body);
      const again = await charge(ngn.api_key, body);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.data.charge_id).toBe(first.body.data.charge_id);
      // The same reference with other parameters is refused, as Stripe does.
      const mismatch = await charge(ngn.api_key, { ...body, description: 'retry' });
      expect([mismatch.status, mismatch.body.error.code]).toEqual([409, 'REFERENCE_REUSED']);
      // References are per merchant: another merchant may use the same one.
      const other = await charge(usd.api_key, {
        ...body,
        currency: 'USD',
        total_currency: 'USD',
        amount: 100,
        total_amount: 100,
      });
      expect(other.body.data.charge_id).not.toBe(first.body.data.charge_id);
    });

    it('concurrent identical charges with one reference create exactly one charge', async () => {
      const reference = `race-${Date.now()}`;
      const results = await Promise.all(Array.from({ length: 8 }, () => charge(ngn.api_key, { ...base, reference })));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(new Set(results.map((r) => r.body.data.charge_id)).size).toBe(1);
      const stored = await (await t.db('payments')).collection('charges').countDocuments({ reference });
      expect(stored).toBe(1);
    });

    it('Idempotency-Key replays the stored response, refuses a different body, and blocks concurrent twins', async () => {
      const key = `idem-${Date.now()}`;
      const first = await charge(ngn.api_key, base, { 'idempotency-key': key });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const replay = await charge(ngn.api_key, base, { 'idempotency-key': key });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);

      const reused = await charge(
        ngn.api_key,
        { ...base, amount: 600_000, total_amount: 600_000 },
        { 'idempotency-key': key },
      );
      expect([reused.status, reused.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);

      // An error answer is kept too: the same key keeps answering the same way.
      const badKey = `idem-bad-${Date.now()}`;
      const bad = await charge(ngn.api_key, { ...base, amount: 1 }, { 'idempotency-key': badKey });
      const badAgain = await charge(ngn.api_key, { ...base, amount: 1 }, { 'idempotency-key': badKey });
      expect([bad.status, badAgain.status, badAgain.headers.get('idempotent-replayed')]).toEqual([400, 400, 'true']);

      const twinKey = `idem-twin-${Date.now()}`;
      const before = await chargeCount();
      const twins = await Promise.all(
        Array.from({ length: 6 }, () => charge(ngn.api_key, base, { 'idempotency-key': twinKey })),
      );
      const statuses = twins.map((r) => r.status).sort();
      expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
      expect(statuses).toContain(200);
      for (const r of twins.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('IDEMPOTENCY_IN_FLIGHT');
      expect(new Set(twins.filter((r) => r.status === 200).map((r) => r.body.data.charge_id)).size).toBe(1);
      expect(await chargeCount()).toBe(before + 1);
    });

    it('keys are scoped to the merchant', async () => {
      const key = `idem-shared-${Date.now()}`;
      const a = await charge(ngn.api_key, base, { 'idempotency-key': key });
      const b = await charge(
        usd.api_key,
        { ...base, currency: 'USD', total_currency: 'USD', amount: 100, total_amount: 100 },
        { 'idempotency-key': key },
      );
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.headers.get('idempotent-replayed')).toBeNull();
    });
  });
});
