import { PlatformError } from '@ppay/kernel';
import { type PlatformMetrics } from '@ppay/runtime';
import { LIVE_KEY, SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';
import { errorFrame, eventFrame, HEARTBEAT_FRAME, readyFrame, STREAM_LIMITS } from './event-stream';

const url = '/api/v1/partner/events/stream';
const headers = { 'x-api-key': SANDBOX_KEY };

const body = JSON.stringify({ api_version: '2026-03-27', event_id: 'evt_1', event_type: 'payment.succeeded' });
const streamed = {
  event_id: 'evt_8f14e45f-ceea-567a-9a36-7a2d4e3c1b2a',
  event_type: 'payment.succeeded',
  api_version: '2026-03-27',
  body,
  cursor: 'c1',
};

/** Scripted PollEvents answers, one per call; past the script the key is "revoked" (ends the stream). */
const polls = (...answers: (object | Error)[]) => {
  let n = 0;
  return () => {
    const a = answers[n++];
    if (a === undefined) throw new PlatformError('INVALID_API_KEY');
    if (a instanceof Error) throw a;
    return a;
  };
};

describe('GET /events/stream (app.inject)', () => {
  const saved = { ...STREAM_LIMITS };
  afterEach(() => Object.assign(STREAM_LIMITS, saved));

  it('frames each event as SSE (id = cursor, event = type, data = the exact body) and polls on from the cursor', async () => {
    STREAM_LIMITS.pollIntervalMs = 10;
    const t = await testGateway({
      webhooks: { PollEvents: polls({ events: [streamed], cursor: 'c1' }, { events: [], cursor: 'c1' }) },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: `${url}?type=payment.succeeded,payment.failed`,
      headers: { ...headers, 'last-event-id': 'c0' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, no-transform');
    expect(res.payload).toBe(
      readyFrame('c0') +
        `id: c1\nevent: payment.succeeded\ndata: ${JSON.stringify({
          event_id: streamed.event_id,
          event_type: 'payment.succeeded',
          api_version: '2026-03-27',
          body,
        })}\n\n` +
        errorFrame('INVALID_API_KEY', 'Invalid API key'),
    );
    // The body survives the framing byte for byte.
    const data = res.payload
      .split('\n')
      .find((l) => l.startsWith('data: {"event_id'))!
      .slice(6);
    expect(JSON.parse(data).body).toBe(body);
    expect(t.calls.map((c) => [c.method, c.request.cursor, c.mode, c.merchantId])).toEqual([
      ['PollEvents', 'c0', 'sandbox', '1000'],
      ['PollEvents', 'c1', 'sandbox', '1000'],
      ['PollEvents', 'c1', 'sandbox', '1000'],
    ]);
    expect(t.calls[0]!.request.types).toEqual(['payment.succeeded', 'payment.failed']);
  });

  it('sends comment heartbeats while nothing happens', async () => {
    Object.assign(STREAM_LIMITS, { pollIntervalMs: 5, heartbeatMs: 0 });
    const t = await testGateway({
      webhooks: { PollEvents: polls({ events: [], cursor: 'c0' }, { events: [], cursor: 'c0' }) },
    });
    const res = await t.app.inject({ method: 'GET', url, headers });
    expect(res.payload).toBe(
      readyFrame('c0') + HEARTBEAT_FRAME + HEARTBEAT_FRAME + errorFrame('INVALID_API_KEY', 'Invalid API key'),
    );
  });

  it('answers a bad cursor, a bad key or too many streams with a JSON error before streaming', async () => {
    const t = await testGateway({
      webhooks: { PollEvents: polls(new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' })) },
    });
    const bad = await t.app.inject({ method: 'GET', url, headers: { ...headers, 'last-event-id': 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false });
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    expect(t.calls).toHaveLength(1);

    STREAM_LIMITS.perKey = 0;
    const full = await testGateway({ webhooks: { PollEvents: polls({ events: [], cursor: 'c0' }) } });
    expect((await full.app.inject({ method: 'GET', url, headers })).statusCode).toBe(429);
    expect(await full.metrics.registry.getSingleMetricAsString('ppay_gateway_event_streams_refused_total')).toContain(
      'ppay_gateway_event_streams_refused_total{limit="key",component="gateway-test"} 1',
    );
  });

  it('counts open streams for operators: one while it streams, none after it ended', async () => {
    STREAM_LIMITS.pollIntervalMs = 10;
    const seen: string[] = [];
    // The fake reads the registry of the gateway it belongs to, known once that gateway is built.
    const gateway: { metrics?: PlatformMetrics } = {};
    const answers = polls({ events: [], cursor: 'c0' }, { events: [], cursor: 'c0' });
    const t = await testGateway({
      webhooks: {
        PollEvents: async () => {
          seen.push(await gateway.metrics!.registry.getSingleMetricAsString('ppay_gateway_event_streams_open'));
          return answers();
        },
      },
    });
    gateway.metrics = t.metrics;
    await t.app.inject({ method: 'GET', url, headers });
    // The first poll happens before the stream opens; the second while it is open.
    expect(seen[1]).toContain('ppay_gateway_event_streams_open{component="gateway-test"} 1');
    expect(await t.metrics.registry.getSingleMetricAsString('ppay_gateway_event_streams_open')).toContain(
      'ppay_gateway_event_streams_open{component="gateway-test"} 0',
    );
  });

  it('ends open streams with a reconnect error when the gateway shuts down', async () => {
    STREAM_LIMITS.pollIntervalMs = 10;
    const t = await testGateway({ webhooks: { PollEvents: () => ({ events: [], cursor: 'c0' }) } });
    const pending = t.app.inject({ method: 'GET', url, headers });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await t.app.close();
    const res = await pending;
    expect(res.payload).toBe(
      readyFrame('c0') + errorFrame('SERVICE_UNAVAILABLE', 'The gateway is restarting; reconnect'),
    );
  });

  it('counts a merchant’s streams across its keys, per mode: beyond the cap 429 EVENT_STREAM_LIMIT_REACHED (H2-3)', async () => {
    STREAM_LIMITS.pollIntervalMs = 10;
    STREAM_LIMITS.perMerchant = 1;
    const t = await testGateway({ webhooks: { PollEvents: () => ({ events: [], cursor: 'c0' }) } });
    const first = t.app.inject({ method: 'GET', url, headers });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The key's own cap (5) has room: the merchant's is what refuses.
    const refused = await t.app.inject({ method: 'GET', url, headers });
    expect([refused.statusCode, refused.json().error.code, refused.headers['retry-after']]).toEqual([
      429,
      'EVENT_STREAM_LIMIT_REACHED',
      '30',
    ]);
    expect(await t.metrics.registry.getSingleMetricAsString('ppay_gateway_event_streams_refused_total')).toContain(
      'ppay_gateway_event_streams_refused_total{limit="merchant",component="gateway-test"} 1',
    );
    // The same merchant's live streams are counted apart.
    const live = t.app.inject({ method: 'GET', url, headers: { 'x-api-key': LIVE_KEY } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await t.app.close();
    expect([(await first).statusCode, (await live).statusCode]).toEqual([200, 200]);
  });

  it('documents the route as text/event-stream', async () => {
    const t = await testGateway();
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const op = doc.paths['/api/v1/partner/events/stream'].get;
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['last-event-id', 'type']);
  });

  it('frames are single lines per field whatever the body holds', () => {
    const frame = eventFrame({ ...streamed, body: '{"a":"line\\nbreak"}' });
    expect(frame.split('\n').filter(Boolean)).toHaveLength(3);
  });
});
