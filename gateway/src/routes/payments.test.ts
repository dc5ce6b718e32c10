import { SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const url = '/api/v1/partner/payments/charge';
const headers = { 'x-api-key': SANDBOX_KEY };
const customer = { email: 'ada@example.com' };
/** What every charge carries (spec 7.1 requires them; the schema says so). */
const basics = { amount: 1_500_000, currency: 'NGN', customer };
const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const usd = (amount: number) => ({ amount, currency: 'USD' });

const routing = { preview: true, payment_gateway: 'naira_gateway', mode: 'sandbox', is_international: false };
const countries = { business_country: 'NG', customer_country: 'NG' };

/** A USD 10.00 price paid as NGN 15,000.00: what payments answers for a preview. */
const wirePreview = {
  ...routing,
  ...countries,
  customer: { base: ngn(1_500_000), fee: ngn(32_500), total: ngn(1_532_500), pays_fees: true },
  business: { price: usd(1_000) },
  conversion: { original: usd(1_000), converted: ngn(1_500_000), exchange_rate: 1500, exchange_rate_decimal: '1500' },
};

/** The same preview as partners see it (spec 4.1 `data`), byte for byte: the schema's field order. */
const restPreview =
  '{"payment_gateway":"naira_gateway","preview":true,"mode":"sandbox","is_international":false,' +
  '"business_country":"NG","customer_country":"NG",' +
  '"customer":{"currency":"NGN","base_amount":1500000,"transaction_fee":32500,"total_charged":1532500,"pays_fees":true},' +
  '"business":{"currency":"USD","priced_amount":1000},' +
  '"conversion":{"original_amount":1000,"original_currency":"USD","converted_amount":1500000,' +
  '"converted_currency":"NGN","exchange_rate":1500}}';

describe('charge and session routes over a fake payments service', () => {
  it('sends each REST amount with its currency as one Money; an amount not sent is no Money at all', async () => {
    const t = await testGateway({ payments: { CreateCharge: () => ({ preview: wirePreview }) } });
    await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: {
        amount: 1_500_000,
        currency: 'NGN',
        total_amount: 1_000,
        total_currency: 'USD',
        converted_total_amount: 1_499_000,
        converted_total_currency: 'NGN',
        customer,
      },
    });
    expect(t.calls[0]!.request).toMatchObject({
      amount: ngn(1_500_000),
      total: usd(1_000),
      converted_total: ngn(1_499_000),
      unpaired_converted_total_currency: undefined,
    });
    // Spec 7.1 tells these apart: the currency without its amount, and an amount without its currency.
    await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: { ...basics, original_product_amount: 5, converted_total_currency: 'NGN' },
    });
    expect(t.calls[1]!.request).toMatchObject({
      amount: ngn(1_500_000),
      total: { amount: 5, currency: '' },
      converted_total: undefined,
      unpaired_converted_total_currency: 'NGN',
    });
  });

  it('answers a charge without amount, currency or customer.email as spec 7.1 does, before payments', async () => {
    const t = await testGateway({ payments: { CreateCharge: () => ({ preview: wirePreview }) } });
    const answer = async (payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers, payload });
      const { code, param, detail } = res.json().error;
      return { status: res.statusCode, code, param, detail };
    };
    const required = 'amount, currency and customer.email are required';
    expect(await answer({})).toEqual({ status: 422, code: 'AMOUNT_REQUIRED', param: 'amount', detail: undefined });
    expect(await answer({ currency: 'NGN', customer })).toMatchObject({ status: 422, code: 'AMOUNT_REQUIRED' });
    expect(await answer({ amount: 5, customer })).toEqual({
      status: 400,
      code: 'MISSING_REQUIRED_FIELDS',
      param: 'currency',
      detail: required,
    });
    for (const payload of [
      { amount: 5, currency: 'NGN' },
      { amount: 5, currency: 'NGN', customer: {} },
    ]) {
      expect(await answer(payload)).toEqual({
        status: 400,
        code: 'MISSING_REQUIRED_FIELDS',
        param: 'customer.email',
        detail: required,
      });
    }
    expect(t.calls).toEqual([]);
  });

  it('answers a preview with the spec 4.1 data, field for field and in order', async () => {
    const t = await testGateway({ payments: { CreateCharge: () => ({ preview: wirePreview }) } });
    const res = await t.app.inject({ method: 'POST', url, headers, payload: { ...basics, preview: true } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`{"success":true,"data":${restPreview},"message":"Preview only: no charge was created"}`);
  });

  it('answers a charge with the spec 2.2 fee_details and its refunded and disputed totals in minor units', async () => {
    const charge = {
      charge_id: 'ch_1',
      payment_gateway: 'naira_gateway',
      transaction_id: 'txn_1',
      fee_details: { base: ngn(500_000), fee: ngn(17_500), total: ngn(500_000), customer_pays_fees: false },
      status: 'pending',
      amount_refunded: ngn(0),
      refunded: false,
      amount_disputed: ngn(2_500),
    };
    const t = await testGateway({ payments: { CreateCharge: () => ({ charge, replayed: false }) } });
    const res = await t.app.inject({ method: 'POST', url, headers, payload: basics });
    expect(res.json().data).toEqual({
      charge_id: 'ch_1',
      payment_gateway: 'naira_gateway',
      status: 'pending',
      transaction_id: 'txn_1',
      fee_details: { base_amount: 500_000, transaction_fee: 17_500, total_amount: 500_000, customer_pays_fees: false },
      amount_refunded: 0,
      refunded: false,
      amount_disputed: 2_500,
    });
  });

  it('sends a session amount as one Money and answers the spec 2.3 amounts and fee_details', async () => {
    const session = {
      session_id: 'cs_1',
      gateway_session_id: 'g',
      expires_at: '2026-11-01T10:30:00.000Z',
      amount: ngn(517_500),
      status: 'pending',
      mode: 'sandbox',
      payment_type: 'one_time',
      fee_details: { base: ngn(500_000), fee: ngn(17_500), total: ngn(517_500), customer_pays_fees: true },
    };
    const t = await testGateway({ payments: { CreateSession: () => session } });
    const body = { amount: 500_000, currency: 'NGN', product_name: 'Sourdough', customer, sub_merchant_id: 2000 };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/payments/sessions',
      headers,
      payload: body,
    });
    expect(t.calls[0]!.request).toMatchObject({
      amount: ngn(500_000),
      product_name: 'Sourdough',
      sub_merchant_id: 2000,
    });
    expect(t.calls[0]!.request).not.toHaveProperty('currency');
    expect(res.json().data).toMatchObject({
      amount: 517_500,
      currency: 'NGN',
      fee_details: {
        base_product_price: 500_000,
        transaction_fee: 17_500,
        total_amount: 517_500,
        customer_pays_fees: true,
      },
    });
  });
});

describe('POST /payments/sessions variation_id', () => {
  it('refuses a variation id that is not a safe stock key with 400 naming it, calling nothing', async () => {
    const t = await testGateway({ payments: { CreateSession: () => ({}) } });
    for (const id of ['a.b', '$where', '__proto__', 'constructor']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/payments/sessions',
        headers,
        payload: { product_id: 7, variation_id: id, customer },
      });
      expect([id, res.statusCode, res.json().error]).toMatchObject([
        id,
        400,
        { code: 'VALIDATION_FAILED', param: 'variation_id' },
      ]);
    }
    expect(t.calls).toEqual([]);
  });
});

describe('charge reads (GET /payments/charges, /payments/charges/{id})', () => {
  const wireCharge = {
    charge_id: 'ch_1',
    transaction_id: 'txn_1',
    payment_gateway: 'naira_gateway',
    status: 'succeeded',
    reference: 'order-1',
    amount: ngn(500_000),
    total: ngn(500_000),
    fee_details: { base: ngn(500_000), fee: ngn(17_500), total: ngn(500_000), customer_pays_fees: false },
    amount_refunded: ngn(100_000),
    refunded: false,
    amount_disputed: ngn(200_000),
    customer_email: 'ada@example.com',
    description: 'Bread',
    is_live: false,
    created_at: '2026-11-01T10:00:00.000Z',
    completed_at: '2026-11-01T10:00:01.000Z',
    refunds: [
      {
        refund_id: 're_1',
        charge_id: 'ch_1',
        amount: ngn(100_000),
        status: 'succeeded',
        created_at: '2026-11-01T11:00:00.000Z',
      },
    ],
    dispute: { dispute_id: 'dp_1', status: 'open', amount: ngn(200_000) },
  };

  it('answers a charge with flat minor units, its refunds and its dispute, absent optionals as null', async () => {
    const t = await testGateway({ payments: { GetCharge: () => wireCharge } });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/partner/payments/charges/ch_1', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      charge_id: 'ch_1',
      transaction_id: 'txn_1',
      payment_gateway: 'naira_gateway',
      status: 'succeeded',
      reference: 'order-1',
      amount: 500_000,
      currency: 'NGN',
      total_amount: 500_000,
      total_currency: 'NGN',
      fee_details: { base_amount: 500_000, transaction_fee: 17_500, total_amount: 500_000, customer_pays_fees: false },
      amount_refunded: 100_000,
      refunded: false,
      amount_disputed: 200_000,
      customer_email: 'ada@example.com',
      description: 'Bread',
      sub_merchant_id: null,
      is_live: false,
      failure_reason: null,
      client_secret: null,
      publishable_key: null,
      gateway_account_id: null,
      gateway_reference: null,
      created_at: '2026-11-01T10:00:00.000Z',
      completed_at: '2026-11-01T10:00:01.000Z',
      refunds: [
        {
          refund_id: 're_1',
          charge_id: 'ch_1',
          amount: 100_000,
          currency: 'NGN',
          status: 'succeeded',
          reason: null,
          failure_reason: null,
          created_at: '2026-11-01T11:00:00.000Z',
        },
      ],
      dispute: { dispute_id: 'dp_1', status: 'open', amount: 200_000, currency: 'NGN' },
    });
    expect(t.calls[0]).toMatchObject({ method: 'GetCharge', request: { charge_id: 'ch_1' } });
  });

  it("answers the processor's id of the payment as gateway_reference", async () => {
    const live = { ...wireCharge, payment_gateway: 'card_gateway', is_live: true, gateway_reference: 'pi_3Abc' };
    const t = await testGateway({ payments: { GetCharge: () => live } });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/partner/payments/charges/ch_1', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ payment_gateway: 'card_gateway', gateway_reference: 'pi_3Abc' });
  });

  it('lists with its filters and refuses bad ones with 400', async () => {
    const t = await testGateway({
      payments: { ListCharges: () => ({ charges: [{ ...wireCharge, dispute: undefined }], has_more: false }) },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/partner/payments/charges?status=succeeded&reference=order-1&limit=10',
      headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ has_more: false, next_cursor: null, charges: [{ dispute: null }] });
    expect(t.calls[0]!.request).toMatchObject({ status: 'succeeded', reference: 'order-1', limit: 10 });
    for (const q of ['status=captured', 'limit=500', 'from=yesterday', `reference=${'r'.repeat(256)}`]) {
      const bad = await t.app.inject({ method: 'GET', url: `/api/v1/partner/payments/charges?${q}`, headers });
      expect([q, bad.statusCode]).toEqual([q, 400]);
    }
  });
});
