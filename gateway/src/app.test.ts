import { status } from '@grpc/grpc-js';
import { PlatformError } from '@ppay/kernel';
import { RemoteCallError, createLogger } from '@ppay/runtime';
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

  it('logs each request once with its request_id and never the API key', async () => {
    const lines: string[] = [];
    const log = createLogger('gateway-test', 'info', { write: (line: string) => void lines.push(line) });
    const t = await testGateway(
      { marketplace: { GetAccount: () => ({ ...account, customer_pays_fees: true }) } },
      {},
      log,
    );
    await t.app.inject({
      method: 'GET',
      url: partner('/account'),
      headers: { 'x-api-key': LIVE_KEY, 'x-request-id': 'req_log_check_1' },
    });
    const completed = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request completed');
    expect(completed).toEqual([
      expect.objectContaining({ request_id: 'req_log_check_1', route: '/api/v1/partner/account', status: 200 }),
    ]);
    expect(completed[0]).not.toHaveProperty('reqId');
    expect(lines.join('')).not.toContain(LIVE_KEY);
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

  it('rotates a webhook secret with or without ending the overlap; a lost race is 409 (H2-10)', async () => {
    let rotations = 0;
    const t = await testGateway({
      webhooks: {
        RegenerateWebhookSecret: (req: { key_id: string; expire_previous: boolean }) => {
          if (++rotations === 3) throw new PlatformError('CONFLICT');
          return { id: req.key_id, webhook_secret: 'whsec_new', webhook_secret_hint: 'whsec_…_new' };
        },
      },
    });
    const headers = { 'x-id-key': await t.userToken(1000) };
    const url = partner('/api-keys/key_1/regenerate-webhook-secret');
    const plain = await t.app.inject({ method: 'POST', url, headers });
    const leak = await t.app.inject({ method: 'POST', url, headers, payload: { expire_previous: true } });
    expect([plain.statusCode, leak.statusCode, leak.headers['cache-control']]).toEqual([200, 200, 'no-store']);
    expect(t.calls.map((c) => c.request)).toEqual([
      { key_id: 'key_1', expire_previous: false },
      { key_id: 'key_1', expire_previous: true },
    ]);
    const lost = await t.app.inject({ method: 'POST', url, headers });
    expect([lost.statusCode, lost.json().error.code]).toEqual([409, 'CONFLICT']);
    const bad = await t.app.inject({ method: 'POST', url, headers, payload: { expire_previous: 'yes', x: 1 } });
    expect(bad.statusCode).toBe(400);
  });

  it('answers a webhook_url the document refuses with the service’s code, not the pattern that refused it', async () => {
    const t = await testGateway();
    const headers = { 'x-id-key': await t.userToken(1000) };
    for (const [method, url] of [
      ['PUT', partner('/api-keys/key_1/webhook')],
      ['POST', partner('/create-api-key')],
    ] as const) {
      const res = await t.app.inject({ method, url, headers, payload: { webhook_url: 'ftp://example.com/hook' } });
      expect([url, res.statusCode, res.json().error]).toEqual([
        url,
        400,
        expect.objectContaining({ code: 'INVALID_WEBHOOK_URL', param: 'webhook_url' }),
      ]);
    }
    expect(t.calls).toEqual([]);
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
      amount: { amount: 500_000, currency: 'NGN' },
      status: 'pending',
      mode: 'sandbox',
      payment_type: 'one_time',
      fee_details: {
        base: { amount: 500_000, currency: 'NGN' },
        fee: { amount: 17_500, currency: 'NGN' },
        total: { amount: 500_000, currency: 'NGN' },
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
    // A session paid on the processor's page (live, Stripe Checkout): its URL is the one answered.
    const stripePage = 'https://checkout.stripe.com/c/pay/cs_test_1';
    const live = await testGateway({ payments: { CreateSession: () => ({ ...session, payment_url: stripePage }) } });
    const onStripe = await live.app.inject({
      method: 'POST',
      url: partner('/payments/sessions'),
      headers,
      payload: { amount: 500_000, currency: 'NGN', product_name: 'x', customer: { email: 'a@b.co' } },
    });
    expect(onStripe.json().data.payment_url).toBe(stripePage);
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
      amount: { amount: 100, currency: 'NGN' },
      total: { amount: 100, currency: 'NGN' },
      callback_url: 'https://shop.example/back',
      customer: { email: 'a@b.co', country: 'Ghana' },
      metadata: { billing_country: { string_value: 'Ghana' } },
    });
    const nested = await t.app.inject({
      method: 'POST',
      url: partner('/payments/charge'),
      headers,
      payload: { amount: 1, currency: 'NGN', customer: { email: 'a@b.co' }, metadata: { cart: { id: 1 } } },
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

  it('answers an undeclared or unknown method on a known path with 405 and Allow, never 404 or 500', async () => {
    const t = await testGateway();
    for (const method of ['PUT', 'TRACE', 'QUERY', 'OPTIONS']) {
      const res = await t.app.inject({
        method: method as 'PUT',
        url: partner('/account'),
        headers: { 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' },
      });
      expect([method, res.statusCode, res.headers.allow, res.json().error.code]).toEqual([
        method,
        405,
        'GET, HEAD',
        'METHOD_NOT_ALLOWED',
      ]);
    }
    const nowhere = await t.app.inject({ method: 'QUERY' as 'GET', url: partner('/nowhere') });
    expect([nowhere.statusCode, nowhere.json().error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });

  it('bounds every partner string before validation logic runs; nested metadata is the spec 422', async () => {
    const t = await testGateway();
    const headers = { 'x-api-key': SANDBOX_KEY };
    // Each on a charge that has what spec 7.1 requires, so the bound is what is refused.
    const basics = { amount: 1, currency: 'NGN', customer: { email: 'a@b.co' } };
    const post = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: partner('/payments/charge'), headers, payload: { ...basics, ...payload } });
    const started = Date.now();
    const evil = await post({ amount: 1, currency: 'NGN', customer: { email: 'a@' + '.'.repeat(1_000_000) + '@' } });
    expect([evil.statusCode, evil.json().error.param]).toEqual([400, 'customer.email']);
    expect(Date.now() - started).toBeLessThan(500);
    for (const [payload, param] of [
      [{ reference: 'r'.repeat(256) }, 'reference'],
      [{ description: 'd'.repeat(1001) }, 'description'],
      [{ callback_url: 'https://x.example/' + 'p'.repeat(2048) }, 'callback_url'],
      [{ customer: { email: 'a@b.co', first_name: 'n'.repeat(201) } }, 'customer.first_name'],
      [{ colour: 'x'.repeat(1001) }, 'colour'],
    ] as const) {
      const res = await post(payload);
      expect([res.statusCode, res.json().error.param]).toEqual([400, param]);
    }
    const manyKeys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect((await post({ metadata: manyKeys })).statusCode).toBe(422);
    expect((await post({ metadata: { note: 'v'.repeat(501) } })).json().error).toMatchObject({
      code: 'METADATA_INVALID',
      param: 'metadata.note',
    });
    for (const key of ['a.b', '$where', 'k'.repeat(41), 'a[0]', '']) {
      const res = await post({ amount: 1, metadata: { ok: 1, [key]: 'x' } });
      expect([key, res.statusCode, res.json().error]).toEqual([
        key,
        422,
        expect.objectContaining({
          code: 'METADATA_INVALID',
          param: 'metadata',
          detail: expect.stringContaining('1 to 40 characters'),
        }),
      ]);
    }
    expect(t.calls).toEqual([]);
  });

  it('create-api-key takes the spec’s `type` (mode stays an alias) and keeps its secrets out of the bucket in clear', async () => {
    const created = {
      key: { id: 'key_1', name: 'k', mode: 'live', masked_key: 'pk_live_…', status: 'active', is_active: true },
      api_key: 'pk_live_' + 'S'.repeat(32),
      webhook_secret: 'whsec_' + 'W'.repeat(32),
    };
    const t = await testGateway({
      webhooks: {
        CreateApiKey: (req: { mode: string }) => ({
          ...created,
          key: {
            ...created.key,
            mode: req.mode,
            webhook_secret_hint: 'whsec_…WWWW',
            api_version: '2026-03-27',
            created_at: '2026-11-01T00:00:00.000Z',
            updated_at: '2026-11-01T00:00:00.000Z',
          },
        }),
      },
    });
    const headers = { 'x-id-key': await t.userToken(1000), 'idempotency-key': 'create-1' };
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/create-api-key'),
      headers,
      payload: { type: 'live' },
    });
    expect([res.statusCode, res.json().data.mode, res.json().data.api_key]).toEqual([201, 'live', created.api_key]);
    expect(t.calls[0]!.request).toMatchObject({ mode: 'live' });
    const stored = [...t.kv.entries.values()].map((e) => new TextDecoder().decode(e.value)).join('\n');
    expect(stored).not.toContain(created.api_key);
    expect(stored).not.toContain(created.webhook_secret);
    const replay = await t.app.inject({
      method: 'POST',
      url: partner('/create-api-key'),
      headers,
      payload: { type: 'live' },
    });
    expect([replay.headers['idempotent-replayed'], replay.json().data.api_key]).toEqual(['true', created.api_key]);
    // `type` is the spec's name: when both are sent it wins over the older alias.
    const both = await t.app.inject({
      method: 'POST',
      url: partner('/create-api-key'),
      headers: { 'x-id-key': headers['x-id-key'] },
      payload: { type: 'live', mode: 'sandbox' },
    });
    expect([both.statusCode, both.json().data.mode]).toEqual([201, 'live']);
  });

  it('keeps a 504 as an unknown outcome (same request forwarded again) and frees the key after a 409 or 503', async () => {
    let answer: () => unknown = () => {
      throw new RemoteCallError('marketplace', 'SetupMarketplace', status.DEADLINE_EXCEEDED, 'deadline');
    };
    const t = await testGateway({ marketplace: { SetupMarketplace: () => answer() } });
    const post = (name: string, key: string) =>
      t.app.inject({
        method: 'POST',
        url: partner('/marketplace/setup'),
        headers: { 'x-api-key': SANDBOX_KEY, 'idempotency-key': key },
        payload: { marketplace_name: name },
      });
    expect((await post('Shop', 'k-504')).statusCode).toBe(504);
    // The key still belongs to its request: a different body is refused, the same one is forwarded again.
    expect((await post('Other', 'k-504')).statusCode).toBe(422);
    answer = () => ({
      marketplace_id: '1000',
      status: 'active',
      marketplace_name: 'Shop',
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
    });
    expect((await post('Shop', 'k-504')).statusCode).toBe(200);
    expect(t.calls.filter((c) => c.method === 'SetupMarketplace')).toHaveLength(2);
    answer = () => {
      throw new PlatformError('CONFLICT');
    };
    expect((await post('Busy', 'k-409')).statusCode).toBe(409);
    answer = () => ({
      marketplace_id: '1000',
      status: 'active',
      marketplace_name: 'Other',
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
    });
    // A conflict is retryable: the key was freed, so even a corrected request may use it.
    expect((await post('Other', 'k-409')).statusCode).toBe(200);
  });

  it('limits failed authentications per address before any key lookup', async () => {
    const t = await testGateway({}, { AUTH_FAILURES_PER_WINDOW: '3' });
    const bad = () =>
      t.app.inject({ method: 'GET', url: partner('/account'), headers: { 'x-api-key': 'pk_live_' + 'z'.repeat(32) } });
    expect([(await bad()).statusCode, (await bad()).statusCode, (await bad()).statusCode]).toEqual([401, 401, 401]);
    const limited = await bad();
    expect([limited.statusCode, limited.json().error.code]).toEqual([429, 'RATE_LIMITED']);
  });
  it('POST /marketplace/merchants: merchant_id answers an invitation (no e-mail field), new fields a relationship', async () => {
    const invitation = {
      invite_token: 'inv_x',
      marketplace_id: 1000,
      marketplace_name: 'Shop',
      merchant_id: 2000,
      mode: 'sandbox',
      status: 'pending',
      invited_at: '2026-11-01T10:00:00.000Z',
      expires_at: '2026-11-08T10:00:00.000Z',
    };
    const relationship = {
      id: 1,
      marketplace_id: 1000,
      merchant_id: 2001,
      commission_rate: '0.0000',
      commission_source: 'none',
      status: 'active',
      joined_at: '2026-11-01T10:00:00.000Z',
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-01T10:00:00.000Z',
      merchant: { id: 2001, educator_email: 'new@x.co' },
      kyc_status: 'not_started',
      payouts_enabled: false,
    };
    const registered = { ...invitation, invite_token: 'inv_y', merchant_id: undefined };
    const t = await testGateway({
      marketplace: {
        InviteMerchant: () => invitation,
        CreateSubMerchant: (req: { email: string }) =>
          req.email === 'taken@x.co' ? { invitation: registered } : { relationship },
      },
    });
    const headers = { 'x-api-key': SANDBOX_KEY };
    const url = partner('/marketplace/merchants');
    const invited = await t.app.inject({ method: 'POST', url, headers, payload: { merchant_id: 2000 } });
    expect([invited.statusCode, invited.json().message]).toEqual([202, 'Invitation sent']);
    expect(invited.json().data).toEqual({ ...invitation, commission_rate: null, responded_at: null });
    const created = await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: { email: 'new@x.co', country: 'NG', baseline_currency: 'NGN' },
    });
    expect([created.statusCode, created.json().message]).toEqual([201, 'Merchant created']);
    expect(created.json().data).toEqual({ ...relationship, invite_token: null, invited_at: null });
    // A registered e-mail is invited (Hardening 2 item 11): 202, and the business's id stays unknown.
    const taken = await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: { email: 'taken@x.co', country: 'NG', baseline_currency: 'NGN' },
    });
    expect([taken.statusCode, taken.json().message]).toEqual([202, 'Invitation sent']);
    expect(taken.json().data).toEqual({
      ...invitation,
      invite_token: 'inv_y',
      merchant_id: null,
      commission_rate: null,
      responded_at: null,
    });
  });
});
