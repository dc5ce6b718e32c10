import { SignJWT } from 'jose';
import { createSecretKey } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEST_INFRA } from '../support/infra';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/** Spec 2.1, 4.8, 5: key management with the user token, and X-API-Key authentication. */
describe('API keys and authentication', () => {
  let t: TestPlatform;
  const partner = (key: string | undefined, url = '/api/v1/partner/account') =>
    http(t.url, 'GET', url, { headers: key === undefined ? {} : { 'x-api-key': key } });
  const asUser = (token: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-id-key': token }, body });

  beforeAll(async () => {
    t = await startTestPlatform('api-keys');
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('X-API-Key: every 401 case answers 401 "Invalid API key" in the one error shape', () => {
    const cases: [string, string | undefined][] = [
      ['missing header', undefined],
      ['empty header', ''],
      ['malformed key', 'not-a-key'],
      ['wrong prefix', 'sk_sandbox_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['unknown but well-formed sandbox key', 'pk_sandbox_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['unknown but well-formed live key', 'pk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ];
    it.each(cases)('%s', async (_name, key) => {
      const res = await partner(key);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        message: 'Invalid API key',
        error: expect.objectContaining({
          code: 'INVALID_API_KEY',
          message: 'Invalid API key',
          request_id: expect.any(String),
        }),
      });
      expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    });

    it('a user token is not accepted where an API key is required', async () => {
      const m = await t.merchant();
      const res = await http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-id-key': m.user_token } });
      expect(res.status).toBe(401);
    });
  });

  describe('GET /account', () => {
    it('returns the merchant and baseline currency of the calling key, with its mode', async () => {
      const m = await t.merchant({ country: 'JP', currency: 'jpy' });
      const res = await partner(m.api_key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          merchant_id: m.merchant_id,
          baseline_currency: 'JPY',
          mode: 'sandbox',
          is_marketplace_operator: false,
          customer_pays_fees: false,
        },
      });
    });

    it('a live key carries live mode to the service, a sandbox key sandbox mode', async () => {
      const m = await t.merchant();
      const live = await asUser(m.user_token, 'POST', '/create-api-key', { mode: 'live' });
      expect(live.status).toBe(201);
      expect(live.body.data.api_key).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
      expect((await partner(live.body.data.api_key)).body.data.mode).toBe('live');
      expect((await partner(m.api_key)).body.data.mode).toBe('sandbox');
    });
  });

  describe('request ids', () => {
    it('carries the request id into the owning service and its logs', async () => {
      const m = await t.merchant();
      const requestId = `trace-${Date.now()}`;
      const res = await http(t.url, 'DELETE', '/api/v1/partner/api-keys/key_doesnotexist', {
        headers: { 'x-id-key': m.user_token, 'x-request-id': requestId },
      });
      expect(res.status).toBe(404);
      expect(res.body.error.request_id).toBe(requestId);
      const logFile = path.join(TEST_INFRA.dir, 'logs', 'api-keys', 'webhooks.log');
      expect(
        await eventually(async () => fs.readFileSync(logFile, 'utf8').includes(`"request_id":"${requestId}"`)),
      ).toBe(true);
    });

    it('echoes a well-formed X-Request-Id and generates one otherwise', async () => {
      const m = await t.merchant();
      const given = await http(t.url, 'GET', '/api/v1/partner/account', {
        headers: { 'x-api-key': m.api_key, 'x-request-id': 'partner-trace-123' },
      });
      expect(given.headers.get('x-request-id')).toBe('partner-trace-123');
      const bad = await http(t.url, 'GET', '/api/v1/partner/account', {
        headers: { 'x-api-key': m.api_key, 'x-request-id': 'has spaces and <html>' },
      });
      expect(bad.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
    });
  });

  describe('user token (x-id-key)', () => {
    const sign = (claims: Record<string, unknown>, secret: string, exp = '1h', sub = 'usr_test') =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuer('ppay-local')
        .setAudience('ppay-dashboard')
        .setIssuedAt()
        .setExpirationTime(exp)
        .sign(createSecretKey(Buffer.from(secret, 'utf8')));

    it.each([
      ['missing', async () => undefined, 'x-id-key header is missing'],
      ['garbage', async () => 'abc.def.ghi', 'token is malformed or its signature is invalid'],
      [
        'signed with another secret',
        async () => sign({ merchant_id: 1000 }, 'x'.repeat(40)),
        'token is malformed or its signature is invalid',
      ],
      ['expired', async () => sign({ merchant_id: 1000 }, t.jwtSecret, '-1m'), 'token has expired'],
      ['without merchant_id', async () => sign({}, t.jwtSecret), 'token has no merchant_id claim'],
    ])('%s token → 401 Unauthorized with the reason', async (_name, token, detail) => {
      const value = await token();
      const res = await http(t.url, 'GET', '/api/v1/partner/api-keys', { headers: value ? { 'x-id-key': value } : {} });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Unauthorized');
      expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', detail });
    });

    it('an API key is not accepted on key management routes', async () => {
      const m = await t.merchant();
      const res = await http(t.url, 'GET', '/api/v1/partner/api-keys', { headers: { 'x-api-key': m.api_key } });
      expect(res.status).toBe(401);
    });
  });

  describe('key management (spec 4.8)', () => {
    it('creates a key whose value and webhook secret are shown once, defaulting to the latest api_version', async () => {
      const m = await t.merchant();
      const created = await asUser(m.user_token, 'POST', '/create-api-key', {
        name: 'Checkout plugin',
        webhook_url: 'https://merchant.example/hooks',
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      const data = created.body.data;
      expect(data).toMatchObject({
        name: 'Checkout plugin',
        mode: 'sandbox',
        status: 'active',
        is_active: true,
        webhook_url: 'https://merchant.example/hooks',
        api_version: '2026-03-27',
      });
      expect(data.api_key).toMatch(/^pk_sandbox_[0-9A-Za-z]{32}$/);
      expect(data.webhook_secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
      expect(data.masked_key).toBe(`pk_sandbox_${data.api_key.slice(11, 15)}…${data.api_key.slice(-4)}`);

      const listed = await asUser(m.user_token, 'GET', '/api-keys');
      expect(listed.status).toBe(200);
      const text = JSON.stringify(listed.body);
      expect(text).not.toContain(data.api_key);
      expect(text).not.toContain(data.webhook_secret);
      expect(listed.body.data.api_keys.map((k: { id: string }) => k.id)).toEqual([m.api_key_id, data.id]);
      expect((await partner(data.api_key)).status).toBe(200);
    });

    it('lists the keys that are not revoked and the 20 most recent revoked ones (H2-3)', async () => {
      const m = await t.merchant();
      const revoked: string[] = [];
      for (let i = 0; i < 23; i++) {
        const created = await asUser(m.user_token, 'POST', '/create-api-key', { name: `temp ${i}` });
        expect(created.status).toBe(201);
        expect((await asUser(m.user_token, 'DELETE', `/api-keys/${created.body.data.id}`)).status).toBe(200);
        revoked.push(created.body.data.id);
      }
      const listed = await asUser(m.user_token, 'GET', '/api-keys');
      expect(listed.status).toBe(200);
      const ids = listed.body.data.api_keys.map((k: { id: string }) => k.id);
      expect(ids).toEqual([m.api_key_id, ...revoked.slice(-20)]);
    });

    it('stores keys hashed and webhook secrets encrypted: the plaintext is nowhere in the database', async () => {
      const m = await t.merchant();
      const rotated = await asUser(m.user_token, 'POST', `/api-keys/${m.api_key_id}/regenerate-webhook-secret`);
      const db = await t.db('webhooks');
      const doc = await db.collection('api_keys').findOne({ _id: m.api_key_id as never });
      expect(doc).not.toBeNull();
      const stored = JSON.stringify(doc);
      expect(stored).not.toContain(m.api_key);
      expect(stored).not.toContain(m.api_key.slice(11)); // not even the random part
      expect(stored).not.toContain(m.webhook_secret.slice(6));
      expect(stored).not.toContain(rotated.body.data.webhook_secret.slice(6));
      expect(doc!.key_hash).toMatch(/^[0-9a-f]{64}$/);
      // The creation and rotation events left through the outbox: nothing stays pending.
      expect(
        await eventually(async () => {
          const fresh = await db.collection('api_keys').findOne({ _id: m.api_key_id as never });
          return (fresh?.outbox as unknown[]).length === 0;
        }),
      ).toBe(true);
      expect(doc!.webhook_secret).toEqual(
        expect.objectContaining({
          key_id: 'k1',
          iv: expect.any(String),
          tag: expect.any(String),
          data: expect.any(String),
        }),
      );
    });

    it('revoking a key makes it fail authentication at once (cache invalidated over NATS) and is permanent', async () => {
      const m = await t.merchant();
      expect((await partner(m.api_key)).status).toBe(200); // now cached in the gateway
      const revoked = await asUser(m.user_token, 'DELETE', `/api-keys/${m.api_key_id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.data).toMatchObject({ status: 'revoked', is_active: false, revoked_at: expect.any(String) });
      expect(await eventually(async () => (await partner(m.api_key)).status === 401, 3_000)).toBe(true);
      // Idempotent, and a revoked key cannot be re-enabled.
      expect((await asUser(m.user_token, 'DELETE', `/api-keys/${m.api_key_id}`)).status).toBe(200);
      const toggle = await asUser(m.user_token, 'PUT', `/api-keys/${m.api_key_id}/toggle-status`);
      expect(toggle.status).toBe(409);
      expect(toggle.body.error.code).toBe('API_KEY_REVOKED');
    });

    it('disabling and re-enabling a key toggles authentication', async () => {
      const m = await t.merchant();
      expect((await partner(m.api_key)).status).toBe(200);
      const disabled = await asUser(m.user_token, 'PUT', `/api-keys/${m.api_key_id}/toggle-status`);
      expect(disabled.body.data.status).toBe('disabled');
      expect(await eventually(async () => (await partner(m.api_key)).status === 401, 3_000)).toBe(true);
      const enabled = await asUser(m.user_token, 'PUT', `/api-keys/${m.api_key_id}/toggle-status`, { enabled: true });
      expect(enabled.body.data.status).toBe('active');
      expect(await eventually(async () => (await partner(m.api_key)).status === 200, 3_000)).toBe(true);
    });

    it('sets the webhook URL and api_version, validating both', async () => {
      const m = await t.merchant();
      const url = `/api-keys/${m.api_key_id}/webhook`;
      const updated = await asUser(m.user_token, 'PUT', url, {
        webhook_url: 'https://h.example/x',
        api_version: '2025-06-01',
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ webhook_url: 'https://h.example/x', api_version: '2025-06-01' });

      // Any real date up to the latest release is a version; a later one is not.
      const badVersion = await asUser(m.user_token, 'PUT', url, { api_version: '2027-01-01' });
      expect(badVersion.status).toBe(400);
      expect(badVersion.body.error).toMatchObject({ code: 'UNSUPPORTED_API_VERSION', param: 'api_version' });
      const badFormat = await asUser(m.user_token, 'PUT', url, { api_version: 'latest' });
      expect(badFormat.status).toBe(400);
      expect(badFormat.body.error.code).toBe('VALIDATION_FAILED');
      const badUrl = await asUser(m.user_token, 'PUT', url, { webhook_url: 'ftp://h.example' });
      expect(badUrl.status).toBe(400);
      expect(badUrl.body.error).toMatchObject({ code: 'INVALID_WEBHOOK_URL', param: 'webhook_url' });
      const nothing = await asUser(m.user_token, 'PUT', url, {});
      expect(nothing.status).toBe(400);
      const cleared = await asUser(m.user_token, 'PUT', url, { webhook_url: '' });
      expect(cleared.body.data.webhook_url).toBeNull();
    });

    it('live keys need an https webhook URL', async () => {
      const m = await t.merchant();
      const res = await asUser(m.user_token, 'POST', '/create-api-key', {
        mode: 'live',
        webhook_url: 'http://h.example/x',
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('webhook_url must use https for live keys');
    });

    it('regenerating the webhook secret returns a new secret once and keeps the key working', async () => {
      const m = await t.merchant();
      const res = await asUser(m.user_token, 'POST', `/api-keys/${m.api_key_id}/regenerate-webhook-secret`);
      expect(res.status).toBe(200);
      expect(res.body.data.webhook_secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
      expect(res.body.data.webhook_secret).not.toBe(m.webhook_secret);
      expect(res.body.data.webhook_secret_hint).toBe(`whsec_…${res.body.data.webhook_secret.slice(-4)}`);
      expect((await partner(m.api_key)).status).toBe(200);
    });

    it("a merchant cannot see or change another merchant's keys", async () => {
      const a = await t.merchant();
      const b = await t.merchant();
      for (const [method, url] of [
        ['DELETE', `/api-keys/${a.api_key_id}`],
        ['PUT', `/api-keys/${a.api_key_id}/toggle-status`],
        ['PUT', `/api-keys/${a.api_key_id}/webhook`],
        ['POST', `/api-keys/${a.api_key_id}/regenerate-webhook-secret`],
      ] as const) {
        const res = await asUser(
          b.user_token,
          method,
          url,
          method === 'PUT' && url.endsWith('webhook') ? { api_version: '2026-03-27' } : undefined,
        );
        expect([method, url, res.status, res.body.error.code]).toEqual([method, url, 404, 'API_KEY_NOT_FOUND']);
      }
      const list = await asUser(b.user_token, 'GET', '/api-keys');
      expect(list.body.data.api_keys.map((k: { id: string }) => k.id)).toEqual([b.api_key_id]);
      expect((await partner(a.api_key)).status).toBe(200);
    });

    it('rejects unknown fields and bad modes with a clear 400', async () => {
      const m = await t.merchant();
      const unknown = await asUser(m.user_token, 'POST', '/create-api-key', { mode: 'sandbox', colour: 'red' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        param: 'colour',
        message: 'Unknown field colour',
      });
      const mode = await asUser(m.user_token, 'POST', '/create-api-key', { mode: 'prod' });
      expect(mode.status).toBe(400);
      expect(mode.body.error.param).toBe('mode');
    });
  });
});
