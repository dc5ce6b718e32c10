import { status } from '@grpc/grpc-js';
import { PlatformError, RemoteCallError } from '@ppay/kernel';
import { LIVE_KEY, SANDBOX_KEY, testGateway, type FakeServices } from './gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const account = { merchant_id: 1000, baseline_currency: 'NGN', mode: 'sandbox', is_marketplace_operator: false };

describe('gateway HTTP behaviour over fake services (app.inject)', () => {
  it('authenticates API keys before anything else and carries merchant and mode to the service', async () => {
    const t = await testGateway({ marketplace: { GetAccount: () => ({ ...account, customer_pays_fees: true }) } });
    const missing = await t.app.inject({ method: 'GET', url: partner('/account') });
    expect([missing.statusCode, missing.json().error]).toEqual([
      401,
      expect.objectContaining({
        code: 'INVALID_API_KEY',
        type: 'authentication',
        detail: 'X-API-Key header is missing',
      }),
    ]);
    const wrong = await t.app.inject({
      method: 'GET',
      url: partner('/account'),
      headers: { 'x-api-key': 'pk_live_x' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(t.calls).toEqual([]);
    const ok = await t.app.inject({ method: 'GET', url: partner('/account'), headers: { 'x-api-key': LIVE_KEY } });
    expect(ok.json()).toEqual({ success: true, data: { ...account, customer_pays_fees: true } });
    expect(t.calls).toEqual([expect.objectContaining({ method: 'GetAccount', merchantId: '1000', mode: 'live' })]);
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
  });

  it('user-token routes refuse API keys and expired or foreign tokens', async () => {
    const t = await testGateway({ webhooks: { ListApiKeys: () => ({ keys: [] }) } });
    const withKey = await t.app.inject({
      method: 'GET',
      url: partner('/api-keys'),
      headers: { 'x-api-key': SANDBOX_KEY },
    });
    expect([withKey.statusCode, withKey.json().error.code]).toEqual([401, 'UNAUTHORIZED']);
    const forged = await t.app.inject({
      method: 'GET',
      url: partner('/api-keys'),
      headers: { 'x-id-key': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' },
    });
    expect(forged.statusCode).toBe(401);
    const ok = await t.app.inject({
      method: 'GET',
      url: partner('/api-keys'),
      headers: { 'x-id-key': await t.userToken(1000) },
    });
    expect(ok.json()).toEqual({ success: true, data: { api_keys: [] } });
  });

  it('validates bodies strictly, naming the field, and maps transport problems to their own statuses', async () => {
    const t = await testGateway();
    const headers = { 'x-id-key': await t.userToken(1000) };
    const inject = (payload: string, contentType = 'application/json') =>
      t.app.inject({
        method: 'POST',
        url: partner('/create-api-key'),
        headers: { ...headers, 'content-type': contentType },
        payload,
      });
    const unknown = await inject('{"mode":"live","colour":"red"}');
    expect([unknown.statusCode, unknown.json().error]).toEqual([
      400,
      expect.objectContaining({ code: 'VALIDATION_FAILED', param: 'colour', message: 'Unknown field colour' }),
    ]);
    const badEnum = await inject('{"mode":"test"}');
    expect(badEnum.json().error).toMatchObject({ param: 'mode', message: 'mode must be one of: sandbox, live' });
    expect((await inject('{"mode": ')).json().error.code).toBe('INVALID_JSON');
    const text = await inject('mode=live', 'text/plain');
    expect([text.statusCode, text.json().error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const huge = await inject(JSON.stringify({ name: 'x'.repeat(2_000_000) }));
    expect([huge.statusCode, huge.json().error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(t.calls).toEqual([]);
  });

  it('answers each service error with the HTTP status of its catalogue code', async () => {
    const services: FakeServices = {
      payments: {
        CreateCharge: () => {
          throw new RemoteCallError(
            'payments',
            'CreateCharge',
            status.FAILED_PRECONDITION,
            'amount is required',
            'AMOUNT_REQUIRED',
            'amount',
          );
        },
        GetSession: () => {
          throw new RemoteCallError('payments', 'GetSession', status.UNAVAILABLE, 'No connection established');
        },
      },
      fxPricing: {
        GetProductPricing: () => {
          throw new PlatformError('PRODUCT_NOT_FOUND');
        },
      },
    };
    const t = await testGateway(services);
    const headers = { 'x-api-key': SANDBOX_KEY };
    const charge = await t.app.inject({ method: 'POST', url: partner('/payments/charge'), headers, payload: {} });
    expect([charge.statusCode, charge.json().message, charge.json().error.param]).toEqual([
      422,
      'amount is required',
      'amount',
    ]);
    const down = await t.app.inject({ method: 'GET', url: partner('/payments/sessions/cs_1'), headers });
    expect([down.statusCode, down.headers['retry-after'], down.json().error.message]).toEqual([
      503,
      '5',
      'Service temporarily unavailable, please retry shortly',
    ]);
    const missing = await t.app.inject({ method: 'GET', url: partner('/products/5/pricing'), headers });
    expect([missing.statusCode, missing.json().error.type]).toEqual([404, 'not_found']);
  });

  it('passes resources through: an absent optional field is the spec’s null, extra proto fields are not sent', async () => {
    const session = {
      session_id: 'cs_1',
      gateway_session_id: 'g',
      payment_url: '',
      expires_at: '2026-11-01T10:30:00.000Z',
      amount: 500_000,
      currency: 'NGN',
      status: 'pending',
      mode: 'sandbox',
      payment_type: 'one_time',
      fee_details: {
        base_product_price: 500_000,
        transaction_fee: 17_500,
        total_amount: 500_000,
        customer_pays_fees: false,
      },
      created_at: '2026-11-01T10:00:00.000Z',
      merchant_id: 1000,
    };
    const t = await testGateway({ payments: { GetSession: () => session, CreateSession: () => session } });
    const headers = { 'x-api-key': SANDBOX_KEY };
    const got = await t.app.inject({ method: 'GET', url: partner('/payments/sessions/cs_1'), headers });
    expect(got.json().data).toEqual({
      session_id: 'cs_1',
      status: 'pending',
      amount: 500_000,
      currency: 'NGN',
      payment_type: 'one_time',
      created_at: '2026-11-01T10:00:00.000Z',
      completed_at: null,
    });
    const created = await t.app.inject({
      method: 'POST',
      url: partner('/payments/sessions'),
      headers,
      payload: { amount: 500_000, currency: 'NGN', product_name: 'x', customer: { email: 'a@b.co' } },
    });
    expect(created.json().data.payment_url).toBe('http://localhost:8080/checkout/cs_1');
    expect(created.json().data).not.toHaveProperty('merchant_id');
  });

  it('resolves the spec 4.1 aliases and country fallbacks, and refuses nested metadata with 422', async () => {
    const t = await testGateway({
      payments: { CreateCharge: () => ({ preview: { preview: true, payment_gateway: 'naira_gateway' } }) },
    });
    const headers = { 'x-api-key': SANDBOX_KEY };
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/payments/charge'),
      headers,
      payload: {
        amount: 100,
        currency: 'NGN',
        original_product_amount: 100,
        original_product_currency: 'NGN',
        redirectUrl: 'https://shop.example/back',
        customer: { email: 'a@b.co' },
        metadata: { billing_country: 'Ghana' },
      },
    });
    expect(res.json()).toMatchObject({ success: true, message: 'Preview only: no charge was created' });
    expect(t.calls[0]!.request).toMatchObject({
      total_amount: 100,
      total_currency: 'NGN',
      callback_url: 'https://shop.example/back',
      customer: { email: 'a@b.co', country: 'Ghana' },
      metadata: { billing_country: { string_value: 'Ghana' } },
    });
    const nested = await t.app.inject({
      method: 'POST',
      url: partner('/payments/charge'),
      headers,
      payload: { amount: 1, metadata: { cart: { id: 1 } } },
    });
    expect([nested.statusCode, nested.json().message, nested.json().error.param]).toEqual([
      422,
      'Metadata validation failed',
      'metadata.cart',
    ]);
  });

  it('replays an Idempotency-Key answer and refuses the key for a different request', async () => {
    let n = 0;
    const t = await testGateway({
      marketplace: {
        SetupMarketplace: () => ({
          marketplace_id: '1000',
          status: 'active',
          marketplace_name: `M${++n}`,
          created_at: '2026-11-01T00:00:00.000Z',
          updated_at: '2026-11-01T00:00:00.000Z',
        }),
      },
    });
    const post = (name: string) =>
      t.app.inject({
        method: 'POST',
        url: partner('/marketplace/setup'),
        headers: { 'x-api-key': SANDBOX_KEY, 'idempotency-key': 'k-1' },
        payload: { marketplace_name: name },
      });
    const first = await post('Shop');
    const again = await post('Shop');
    expect([again.json().data.marketplace_name, again.headers['idempotent-replayed']]).toEqual(['M1', 'true']);
    expect(first.json().data.default_commission_rate).toBeNull();
    const reused = await post('Other');
    expect([reused.statusCode, reused.json().error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(n).toBe(1);
  });
});
