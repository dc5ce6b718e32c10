import { PlatformError } from '@ppay/kernel';
import { SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };

const event = {
  event_id: 'evt_8f14e45f-ceea-567a-9a36-7a2d4e3c1b2a',
  event_type: 'payment.succeeded',
  occurred_at: '2026-05-01T10:00:00.000Z',
  is_live: false,
  business_id: '1000',
  sequence: 1,
  object_type: 'charge',
  object_id: 'ch_1',
  delivery_status: 'failed',
  data: JSON.stringify({ charge_id: 'ch_1', amount: { merchant_net: { amount: 10, currency: 'NGN' } } }),
  created_at: '2026-05-01T10:00:01.000Z',
  source_event_id: 'internal-only',
};

const attempt = {
  number: 1,
  started_at: '2026-05-01T10:00:02.000Z',
  success: false,
  response_excerpt: '',
  url: 'http://127.0.0.1:1/h',
  api_version: '2026-03-27',
  request_headers: { 'x-service-event': 'payment.succeeded' },
  request_body: '{"event_id":"evt_…"}',
  request_body_truncated: false,
  request_body_bytes: 22,
  error_class: 'interrupted',
};

describe('event log routes (app.inject)', () => {
  it('lists events with parsed data, splitting the type filter, with the calling key’s merchant and mode', async () => {
    const t = await testGateway({
      webhooks: { ListEvents: () => ({ events: [event], has_more: false }) },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: partner('/events?type=payment.succeeded,wallet.credited&delivery_status=failed&limit=5'),
      headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      events: [
        {
          ...Object.fromEntries(Object.entries(event).filter(([k]) => k !== 'source_event_id')),
          data: JSON.parse(event.data),
        },
      ],
      has_more: false,
      next_cursor: null,
    });
    expect(t.calls[0]).toMatchObject({
      method: 'ListEvents',
      mode: 'sandbox',
      merchantId: '1000',
      request: { types: ['payment.succeeded', 'wallet.credited'], delivery_status: 'failed', limit: 5 },
    });
  });

  it('bounds and validates the query before any call', async () => {
    const t = await testGateway({ webhooks: {} });
    for (const q of [
      'limit=0',
      'limit=101',
      'delivery_status=lost',
      'from=yesterday',
      `cursor=${'x'.repeat(201)}`,
      'type=A',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: partner(`/events?${q}`), headers });
      expect([q, res.statusCode]).toEqual([q, 400]);
    }
    expect(t.calls).toEqual([]);
  });

  it('answers a cursor that is not base64url text 400 INVALID_CURSOR, as the service does, before any call', async () => {
    const t = await testGateway({ webhooks: {} });
    for (const cursor of ['a+b', 'abc=', 'a%20b', 'x'.repeat(201)]) {
      const res = await t.app.inject({ method: 'GET', url: partner(`/events?cursor=${cursor}`), headers });
      expect([cursor, res.statusCode, res.json().error.code, res.json().error.param]).toEqual([
        cursor,
        400,
        'INVALID_CURSOR',
        'cursor',
      ]);
    }
    expect(t.calls).toEqual([]);
  });

  it('shows an event’s deliveries with nulls for absent optional fields; unknown events are 404', async () => {
    const t = await testGateway({
      webhooks: {
        GetEvent: (req: { event_id: string }) => {
          if (req.event_id !== event.event_id) throw new PlatformError('EVENT_NOT_FOUND');
          return {
            ...event,
            deliveries: [
              {
                delivery_id: 'dlv_1',
                key_id: 'key_1',
                status: 'failed',
                attempt_count: 1,
                created_at: event.created_at,
                updated_at: event.created_at,
                attempts: [attempt],
                attempts_has_more: true,
              },
            ],
          };
        },
      },
    });
    const got = await t.app.inject({ method: 'GET', url: partner(`/events/${event.event_id}`), headers });
    expect(got.statusCode).toBe(200);
    expect(got.json().data.deliveries[0]).toEqual({
      delivery_id: 'dlv_1',
      key_id: 'key_1',
      status: 'failed',
      attempt_count: 1,
      next_attempt_at: null,
      last_error_class: null,
      created_at: event.created_at,
      updated_at: event.created_at,
      attempts: [{ ...attempt, duration_ms: null, status: null }],
      attempts_has_more: true,
    });
    const missing = await t.app.inject({ method: 'GET', url: partner('/events/evt_nope'), headers });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'EVENT_NOT_FOUND']);
  });

  it('pages a delivery’s attempts and answers one attempt whole, in the caller’s merchant and mode', async () => {
    const t = await testGateway({
      webhooks: {
        ListEventAttempts: () => ({ attempts: [attempt], has_more: true, next_cursor: 'YXwx' }),
        GetEventAttempt: (req: { number: number }) => {
          if (req.number !== 1) throw new PlatformError('ATTEMPT_NOT_FOUND');
          return attempt;
        },
      },
    });
    const base = partner(`/events/${event.event_id}/deliveries/dlv_1/attempts`);
    const page = await t.app.inject({ method: 'GET', url: `${base}?limit=5&cursor=YXww`, headers });
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toMatchObject({ has_more: true, next_cursor: 'YXwx', attempts: [{ number: 1 }] });
    expect(t.calls[0]).toMatchObject({
      method: 'ListEventAttempts',
      request: { event_id: event.event_id, delivery_id: 'dlv_1', limit: 5, cursor: 'YXww' },
      merchantId: '1000',
      mode: 'sandbox',
    });
    const one = await t.app.inject({ method: 'GET', url: `${base}/1`, headers });
    expect([one.statusCode, one.json().data.request_body]).toEqual([200, attempt.request_body]);
    expect(t.calls[1]!.request).toEqual({ event_id: event.event_id, delivery_id: 'dlv_1', number: 1 });
    const missing = await t.app.inject({ method: 'GET', url: `${base}/2`, headers });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'ATTEMPT_NOT_FOUND']);
    const tooMany = await t.app.inject({ method: 'GET', url: `${base}?limit=21`, headers });
    expect(tooMany.statusCode).toBe(400);
  });

  it('resend and recover answer 202; recover needs since', async () => {
    const t = await testGateway({
      webhooks: {
        ResendEvent: () => ({ ...event, deliveries: [] }),
        RecoverDeliveries: (req: { dry_run?: boolean }) => ({ count: 3, dry_run: req.dry_run ?? false }),
      },
    });
    const resent = await t.app.inject({ method: 'POST', url: partner(`/events/${event.event_id}/resend`), headers });
    expect(resent.statusCode).toBe(202);
    const recovered = await t.app.inject({
      method: 'POST',
      url: partner('/webhooks/recover'),
      headers,
      payload: { since: '2026-05-01T00:00:00Z', dry_run: true },
    });
    expect([recovered.statusCode, recovered.json().data]).toEqual([202, { count: 3, dry_run: true }]);
    const noSince = await t.app.inject({ method: 'POST', url: partner('/webhooks/recover'), headers, payload: {} });
    expect(noSince.statusCode).toBe(400);
  });

  it('webhook/test takes the user token, never an API key', async () => {
    const t = await testGateway({
      webhooks: {
        TestWebhook: () => ({
          event_id: event.event_id,
          url: 'https://h.example/x',
          success: true,
          status: 200,
          latency_ms: 12,
          response_excerpt: 'ok',
        }),
      },
    });
    const url = partner('/api-keys/key_1/webhook/test');
    const withKey = await t.app.inject({ method: 'POST', url, headers });
    expect(withKey.statusCode).toBe(401);
    const res = await t.app.inject({ method: 'POST', url, headers: { 'x-id-key': await t.userToken(1000) } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      event_id: event.event_id,
      url: 'https://h.example/x',
      success: true,
      status: 200,
      latency_ms: 12,
      error_class: null,
      response_excerpt: 'ok',
    });
  });
});
