import { http, startTestPlatform, type TestPlatform } from '../support/platform';
import { NGN_CHARGE } from '../support/fixtures';

/** Gateway rate limits (docs/decisions.md "Rate limits"), with small limits so bursts are cheap. */
describe('rate limits', () => {
  let t: TestPlatform;
  const LIMITS = { live: 8, sandbox: 5, dashboard: 4, anonymous: 3 };
  const account = (key: string, headers: Record<string, string> = {}) =>
    http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-api-key': key, ...headers } });
  const burst = <T>(n: number, send: () => Promise<T>) => Promise.all(Array.from({ length: n }, send));
  const statuses = (results: { status: number }[]) => results.map((r) => r.status);
  /** Waits out the current one-second window of every bucket. */
  const nextWindow = () => new Promise((r) => setTimeout(r, 1_100));

  beforeAll(async () => {
    t = await startTestPlatform('rate-limits', {
      envFor: {
        gateway: {
          RATE_LIMIT_LIVE_PER_SECOND: String(LIMITS.live),
          RATE_LIMIT_SANDBOX_PER_SECOND: String(LIMITS.sandbox),
          RATE_LIMIT_DASHBOARD_PER_SECOND: String(LIMITS.dashboard),
          RATE_LIMIT_ANONYMOUS_PER_SECOND: String(LIMITS.anonymous),
        },
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a sandbox key gets its limit per second, then 429 with the error body and rate headers', async () => {
    const m = await t.merchant();
    await account(m.api_key); // warm the key cache
    await nextWindow();
    const results = await burst(12, () => account(m.api_key));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(12);
    // One window holds exactly the limit; a burst straddling a window boundary may see two.
    expect(ok.length).toBeGreaterThanOrEqual(LIMITS.sandbox);
    expect(ok.length).toBeLessThanOrEqual(2 * LIMITS.sandbox);
    expect(ok[0]!.headers.get('x-ratelimit-limit')).toBe(String(LIMITS.sandbox));
    const refused = limited[0]!;
    expect(refused.body).toMatchObject({
      success: false,
      message: 'Too many requests',
      error: { code: 'RATE_LIMITED', message: 'Too many requests' },
    });
    expect(refused.body.error.detail).toContain(`at most ${LIMITS.sandbox} requests per second`);
    expect(refused.body.error.request_id).toBe(refused.headers.get('x-request-id'));
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');

    await nextWindow();
    expect((await account(m.api_key)).status).toBe(200);
  });

  it('counts per merchant and per mode: others are not slowed by one busy key', async () => {
    const busy = await t.merchant();
    const other = await t.merchant();
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': busy.user_token },
      body: { mode: 'live' },
    });
    const liveKey = live.body.data.api_key as string;
    await Promise.all([account(busy.api_key), account(other.api_key), account(liveKey)]);
    await nextWindow();

    const [flooded, otherOk, liveOk] = await Promise.all([
      burst(3 * LIMITS.sandbox, () => account(busy.api_key)),
      account(other.api_key),
      account(liveKey),
    ]);
    expect(statuses(flooded)).toContain(429);
    expect(otherOk.status).toBe(200);
    expect(liveOk.status).toBe(200);
    expect(liveOk.headers.get('x-ratelimit-limit')).toBe(String(LIMITS.live));
  });

  it('a throttled POST is not stored as the Idempotency-Key answer: the retry goes through', async () => {
    const m = await t.merchant();
    await account(m.api_key);
    await nextWindow();
    await burst(3 * LIMITS.sandbox, () => account(m.api_key));
    const body = NGN_CHARGE;
    const headers = { 'x-api-key': m.api_key, 'idempotency-key': 'order-77' };
    const throttled = await http(t.url, 'POST', '/api/v1/partner/payments/charge', { headers, body });
    expect(throttled.status).toBe(429);
    await nextWindow();
    const retried = await http(t.url, 'POST', '/api/v1/partner/payments/charge', { headers, body });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.data.charge_id).toMatch(/^ch_/);
  });

  it('limits the dashboard user token and anonymous checkout traffic; probes are never limited', async () => {
    const m = await t.merchant();
    await nextWindow();
    const settings = await burst(3 * LIMITS.dashboard, () =>
      http(t.url, 'GET', '/api/v1/partner/account/settings', { headers: { 'x-id-key': m.user_token } }),
    );
    expect(statuses(settings)).toContain(429);
    expect(settings.find((r) => r.status === 200)!.headers.get('x-ratelimit-limit')).toBe(String(LIMITS.dashboard));

    const pages = await burst(3 * LIMITS.anonymous, () =>
      fetch(`${t.url}/checkout/cs_${'x'.repeat(32)}`).then((r) => ({ status: r.status })),
    );
    expect(statuses(pages)).toContain(404);
    expect(statuses(pages)).toContain(429);

    const probes = await burst(20, () => fetch(`${t.url}/health`).then((r) => ({ status: r.status })));
    expect(new Set(statuses(probes))).toEqual(new Set([200]));

    const metrics = await (await fetch(t.platform.metricsUrl('gateway'))).text();
    for (const cls of ['sandbox', 'dashboard', 'anonymous']) {
      const line = metrics
        .split('\n')
        .find((l) => l.startsWith('ppay_gateway_rate_limited_total{') && l.includes(`class="${cls}"`));
      expect(Number(line?.split(' ').pop())).toBeGreaterThan(0);
    }
  });
});
