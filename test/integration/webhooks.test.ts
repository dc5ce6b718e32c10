import { verifyWebhook } from '@ppay/webhooks-receiver';
import { NGN_CHARGE } from '../support/fixtures';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startReceiver } from '../support/webhook-receiver';

/** Spec 5.7, 6.1–6.7 and 9: deliveries to a real loopback receiver. */
describe('webhook delivery', () => {
  let t: TestPlatform;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  const partner = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const asUser = (token: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-id-key': token }, body });

  async function paidCharge(key: string, outcome: 'succeed' | 'fail' = 'succeed'): Promise<string> {
    const created = await partner(key, 'POST', '/payments/charge', NGN_CHARGE);
    expect(created.status).toBe(200);
    const id = created.body.data.charge_id as string;
    expect((await partner(key, 'POST', `/sandbox/charges/${id}/${outcome}`)).status).toBe(200);
    return id;
  }

  async function merchantWithHook(path: string, version?: string) {
    const m = await t.merchant();
    const set = await asUser(m.user_token, 'PUT', `/api-keys/${m.api_key_id}/webhook`, {
      webhook_url: rx.url(path),
      ...(version ? { api_version: version } : {}),
    });
    expect(set.status).toBe(200);
    return m;
  }

  beforeAll(async () => {
    rx = await startReceiver((path, n) => {
      if (path.startsWith('/fail')) return { status: 500 };
      if (path.startsWith('/flaky')) return { status: n === 1 ? 503 : 200 };
      if (path.startsWith('/hang')) return { status: 200, delayMs: 12_000 };
      return { status: 200 };
    });
    t = await startTestPlatform('webhooks');
  });
  afterAll(async () => {
    await t?.stop();
    await rx?.close();
  });

  it('delivers payment.succeeded and wallet.credited signed over the exact bytes, with every header', async () => {
    const m = await merchantWithHook('/ok');
    const chargeId = await paidCharge(m.api_key);
    expect(await eventually(async () => rx.on('/ok').length >= 2, 15_000)).toBe(true);
    const paid = rx.on('/ok').find((r) => r.body.event_type === 'payment.succeeded')!;
    const wallet = rx.on('/ok').find((r) => r.body.event_type === 'wallet.credited')!;
    for (const r of [paid, wallet]) {
      const event = verifyWebhook(r.raw, r.headers as Record<string, string>, [m.webhook_secret]);
      expect(event.event_id).toBe(r.body.event_id);
      expect(r.headers).toMatchObject({
        'content-type': 'application/json',
        'x-service-event': r.body.event_type,
        'x-service-event-id': r.body.event_id,
        'x-service-api-version': '2026-03-27',
      });
      expect(r.headers['x-service-timestamp']).toMatch(/^\d{10}$/);
    }
    expect(paid.body).toMatchObject({
      api_version: '2026-03-27',
      event_id: expect.stringMatching(/^evt_[0-9a-f-]{36}$/),
      is_live: false,
      business_id: String(m.merchant_id),
      sequence: expect.any(Number), // the source event's stream position (decisions, Webhooks 35)
      data: {
        charge_id: chargeId,
        status: 'succeeded',
        payment_type: 'one_time',
        amount: { merchant_gross: { amount: 500_000, currency: 'NGN' } },
      },
    });
    expect(wallet.body.data).toMatchObject({ kind: 'credit', reason: 'payment', charge_id: chargeId });

    // The event log shows the exact bytes and headers that were sent.
    const log = await partner(m.api_key, 'GET', `/events/${paid.body.event_id}`);
    expect(log.status).toBe(200);
    expect(log.body.data).toMatchObject({
      event_type: 'payment.succeeded',
      delivery_status: 'succeeded',
      sequence: paid.body.sequence,
    });
    const attempt = log.body.data.deliveries[0].attempts[0];
    expect(attempt).toMatchObject({
      number: 1,
      status: 200,
      success: true,
      error_class: null,
      response_excerpt: 'answer 200',
    });
    // An event shows the first 2,048 characters of each body; the attempt's own read has all of it.
    expect(attempt.request_body).toBe(paid.raw.slice(0, 2_048));
    expect(attempt).toMatchObject({
      request_body_truncated: paid.raw.length > 2_048,
      request_body_bytes: Buffer.byteLength(paid.raw),
    });
    const deliveryPath = `/events/${paid.body.event_id}/deliveries/${log.body.data.deliveries[0].delivery_id}/attempts`;
    const whole = await partner(m.api_key, 'GET', `${deliveryPath}/1`);
    expect([whole.status, whole.body.data.request_body]).toEqual([200, paid.raw]);
    const page = await partner(m.api_key, 'GET', deliveryPath);
    expect(page.body.data).toMatchObject({ has_more: false, attempts: [{ number: 1 }] });
    expect(attempt.request_headers['x-service-signature']).toBe(paid.headers['x-service-signature']);
    const list = await partner(m.api_key, 'GET', '/events?type=payment.succeeded,wallet.credited&limit=1');
    expect(list.body.data.events).toHaveLength(1);
    expect(list.body.data.has_more).toBe(true);
    const next = await partner(m.api_key, 'GET', `/events?limit=1&cursor=${list.body.data.next_cursor}`);
    expect(next.body.data.events).toHaveLength(1);
    expect(next.body.data.events[0].event_id).not.toBe(list.body.data.events[0].event_id);
  });

  it('renders the pre-2026-03-27 shape for a key on an earlier version, and no wallet events', async () => {
    const m = await merchantWithHook('/legacy', '2025-06-01');
    await paidCharge(m.api_key);
    expect(await eventually(async () => rx.on('/legacy').length >= 1, 15_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(rx.on('/legacy')).toHaveLength(1);
    const r = rx.on('/legacy')[0]!;
    expect(r.headers['x-service-api-version']).toBe('2025-06-01');
    expect(r.body).not.toHaveProperty('api_version');
    expect(r.body).not.toHaveProperty('business_id');
    expect(r.body.data).toMatchObject({
      amount: 500_000,
      currency: 'NGN',
      status: 'success',
      customer: { paid_amount: expect.any(Number), paid_currency: 'NGN' },
      transaction_details: { payment_type: 'one_time', payment_gateway: expect.any(String) },
    });
  });

  it('makes 3 attempts 2 s (±0.3 s) apart with the same event id, then fails; resend delivers it again', async () => {
    const m = await merchantWithHook('/fail');
    await paidCharge(m.api_key, 'fail');
    expect(await eventually(async () => rx.on('/fail').length >= 3, 20_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 2_500));
    const hits = rx.on('/fail');
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.body.event_id)).size).toBe(1);
    for (let i = 1; i < 3; i++) {
      const gap = hits[i]!.at - hits[i - 1]!.at;
      expect(gap).toBeGreaterThanOrEqual(1_700);
      expect(gap).toBeLessThanOrEqual(2_300);
    }
    const eventId = hits[0]!.body.event_id as string;
    const failed = await partner(m.api_key, 'GET', `/events?delivery_status=failed`);
    expect(failed.body.data.events.map((e: { event_id: string }) => e.event_id)).toEqual([eventId]);
    const detail = (await partner(m.api_key, 'GET', `/events/${eventId}`)).body.data;
    expect(detail.deliveries[0]).toMatchObject({ status: 'failed', attempt_count: 3 });
    expect(detail.deliveries[0].attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 500]);

    const dry = await partner(m.api_key, 'POST', '/webhooks/recover', {
      since: new Date(Date.now() - 60_000).toISOString(),
      dry_run: true,
    });
    expect(dry.status).toBe(202);
    expect(dry.body.data).toEqual({ count: 1, dry_run: true });
    const resent = await partner(m.api_key, 'POST', `/events/${eventId}/resend`);
    expect(resent.status).toBe(202);
    expect(await eventually(async () => rx.on('/fail').length >= 4, 10_000)).toBe(true);
    expect(rx.on('/fail')[3]!.body.event_id).toBe(eventId);

    // Five resends per event and hour (H2-3): the sixth is 429 with the window's end as Retry-After.
    for (let i = 0; i < 4; i++)
      expect((await partner(m.api_key, 'POST', `/events/${eventId}/resend`)).status).toBe(202);
    const refused = await partner(m.api_key, 'POST', `/events/${eventId}/resend`);
    expect([refused.status, refused.body.error.code]).toEqual([429, 'RESEND_LIMIT_REACHED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3_500);
  });

  it('isolates tenants and modes, and sends nothing to disabled keys', async () => {
    const a = await merchantWithHook('/tenant-a');
    const b = await merchantWithHook('/tenant-b');
    const live = await t.merchant({ keyMode: 'live' });
    // A live key cannot target loopback; sandbox events never reach live keys anyway.
    const refused = await asUser(live.user_token, 'PUT', `/api-keys/${live.api_key_id}/webhook`, {
      webhook_url: rx.url('/live'),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_WEBHOOK_URL');
    const disabled = await merchantWithHook('/disabled');
    await asUser(disabled.user_token, 'PUT', `/api-keys/${disabled.api_key_id}/toggle-status`, { enabled: false });
    // A second (sandbox) key of `disabled` pays, so its events exist; the disabled key must get none.
    const second = await asUser(disabled.user_token, 'POST', '/create-api-key', { type: 'sandbox' });
    await paidCharge(second.body.data.api_key);
    await paidCharge(a.api_key);
    expect(await eventually(async () => rx.on('/tenant-a').length >= 2, 15_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(rx.on('/tenant-b')).toHaveLength(0);
    expect(rx.on('/disabled')).toHaveLength(0);
    expect(rx.on('/tenant-a').every((r) => r.body.business_id === String(a.merchant_id))).toBe(true);
    // b sees none of a's events.
    const other = await partner(b.api_key, 'GET', `/events/${rx.on('/tenant-a')[0]!.body.event_id}`);
    expect(other.status).toBe(404);
  });

  it('refuses metadata and link-local targets when saved, even for sandbox keys', async () => {
    const m = await t.merchant();
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/x', 'http://0.0.0.0/x']) {
      const res = await asUser(m.user_token, 'PUT', `/api-keys/${m.api_key_id}/webhook`, { webhook_url: url });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_WEBHOOK_URL');
    }
  });

  it('signs with both secrets in V2 for 24 h after a rotation, the spec header with the new one', async () => {
    const m = await merchantWithHook('/rotated');
    const rotated = await asUser(m.user_token, 'POST', `/api-keys/${m.api_key_id}/regenerate-webhook-secret`);
    const fresh = rotated.body.data.webhook_secret as string;
    await new Promise((r) => setTimeout(r, 1_100)); // the worker's key cache
    await paidCharge(m.api_key);
    expect(await eventually(async () => rx.on('/rotated').length >= 1, 15_000)).toBe(true);
    const r = rx.on('/rotated')[0]!;
    expect((r.headers['x-service-signature-v2'] as string).split(',').filter((p) => p.startsWith('v1='))).toHaveLength(
      2,
    );
    const headers = r.headers as Record<string, string>;
    expect(verifyWebhook(r.raw, headers, [fresh]).event_id).toBe(r.body.event_id);
    expect(verifyWebhook(r.raw, headers, [m.webhook_secret]).event_id).toBe(r.body.event_id);
    // X-Service-Signature (spec 5.7) is the new secret's only.
    expect(
      verifyWebhook(r.raw, { ...headers, 'x-service-signature-v2': '' }, [fresh], { requireTimestamp: false }).event_id,
    ).toBe(r.body.event_id);

    // After a leak (H2-10): expire_previous ends the overlap at once, only the newest secret signs.
    const leaked = await asUser(m.user_token, 'POST', `/api-keys/${m.api_key_id}/regenerate-webhook-secret`, {
      expire_previous: true,
    });
    expect(leaked.status).toBe(200);
    const newest = leaked.body.data.webhook_secret as string;
    await new Promise((r) => setTimeout(r, 1_100));
    await paidCharge(m.api_key);
    expect(await eventually(async () => rx.on('/rotated').length >= 3, 15_000)).toBe(true);
    const after = rx.on('/rotated').at(-1)!;
    const v2 = (after.headers['x-service-signature-v2'] as string).split(',').filter((p) => p.startsWith('v1='));
    expect(v2).toHaveLength(1);
    expect(verifyWebhook(after.raw, after.headers as Record<string, string>, [newest]).event_id).toBe(
      after.body.event_id,
    );
    expect(() => verifyWebhook(after.raw, after.headers as Record<string, string>, [fresh])).toThrow();
  });

  it('times out a hanging receiver at 10 s without slowing another merchant', async () => {
    const slow = await merchantWithHook('/hang');
    const fast = await merchantWithHook('/fast');
    await paidCharge(slow.api_key);
    expect(await eventually(async () => rx.on('/hang').length >= 1, 15_000)).toBe(true);
    const started = Date.now();
    await paidCharge(fast.api_key);
    expect(await eventually(async () => rx.on('/fast').length >= 2, 5_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    const eventId = rx.on('/hang')[0]!.body.event_id as string;
    expect(
      await eventually(
        async () => {
          // A first attempt is stored once it is answered, here when it times out.
          const d = (await partner(slow.api_key, 'GET', `/events/${eventId}`)).body.data;
          return d.deliveries.length > 0 && d.deliveries[0].attempts.length >= 1;
        },
        15_000,
        250,
      ),
    ).toBe(true);
    const attempt = (await partner(slow.api_key, 'GET', `/events/${eventId}`)).body.data.deliveries[0].attempts[0];
    expect(attempt).toMatchObject({ error_class: 'timeout', status: null, success: false });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(9_900);
    expect(attempt.duration_ms).toBeLessThan(11_000);
  }, 40_000);

  it('delivers subscription events to the merchant, signed like every other event', async () => {
    const m = await merchantWithHook('/subs');
    const created = await partner(m.api_key, 'POST', '/sandbox/subscriptions', {
      amount: 500_000,
      currency: 'NGN',
      product_name: 'Bread club',
      customer: { email: 'ada@example.com', first_name: 'Ada' },
      subscription_frequency_key: 'monthly',
      card_number: '4242 4242 4242 4242',
    });
    expect(created.status).toBe(200);
    const subscriptionId = created.body.data.id as string;
    const of = (type: string) => rx.on('/subs').filter((r) => r.body.event_type === type);
    expect(await eventually(async () => of('subscription.created').length === 1, 15_000)).toBe(true);
    const [event] = of('subscription.created');
    expect(verifyWebhook(event.raw, event.headers as Record<string, string>, [m.webhook_secret]).event_type).toBe(
      'subscription.created',
    );
    expect(event.body).toMatchObject({
      business_id: String(m.merchant_id),
      sequence: expect.any(Number), // the source event's stream position (decisions, Webhooks 35)
      data: { subscription_id: subscriptionId, status: 'active', plan: { frequency: 'monthly' } },
    });
  });

  it('POST /api-keys/{id}/webhook/test pings the receiver now and reports status and latency', async () => {
    const m = await merchantWithHook('/ping');
    const res = await asUser(m.user_token, 'POST', `/api-keys/${m.api_key_id}/webhook/test`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, status: 200, url: rx.url('/ping'), error_class: null });
    expect(res.body.data.latency_ms).toBeGreaterThanOrEqual(0);
    const r = rx.on('/ping')[0]!;
    expect(verifyWebhook(r.raw, r.headers as Record<string, string>, [m.webhook_secret])).toMatchObject({
      event_type: 'ping',
      event_id: res.body.data.event_id,
    });
  });
});
