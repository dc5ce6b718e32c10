import { verifyWebhook } from '@ppay/webhooks-receiver';
import { eventLine, forwardHeaders, generateSessionSecret, SseParser } from './listen';

describe('listen CLI pieces', () => {
  it('parses SSE frames split across chunks, skipping comments; an id-only frame still counts', () => {
    const p = new SseParser();
    const text =
      ': heartbeat\n\nid: c0\nevent: ready\ndata: {}\n\nid: c1\nevent: payment.succeeded\ndata: {"a":1}\r\n\nid: c2\n\n';
    const frames = [...text].flatMap((ch) => p.push(ch));
    expect(frames).toEqual([
      { id: 'c0', event: 'ready', data: '{}' },
      { id: 'c1', event: 'payment.succeeded', data: '{"a":1}' },
      { id: 'c2', event: 'message', data: '' },
    ]);
  });

  it('signs the exact body with the session secret, with the headers of a real delivery', () => {
    const secret = generateSessionSecret();
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const body = '{"event_id":"evt_1","event_type":"payment.succeeded","data":{}}';
    const now = Math.floor(Date.now() / 1000);
    const headers = forwardHeaders(
      { event_id: 'evt_1', event_type: 'payment.succeeded', api_version: '2025-06-01', body },
      secret,
      now,
    );
    expect(Object.keys(headers).sort()).toEqual([
      'content-type',
      'user-agent',
      'x-service-api-version',
      'x-service-event',
      'x-service-event-id',
      'x-service-signature',
      'x-service-signature-v2',
      'x-service-timestamp',
    ]);
    expect(headers).toMatchObject({ 'x-service-api-version': '2025-06-01', 'x-service-timestamp': String(now) });
    expect(verifyWebhook(body, headers, [secret]).event_id).toBe('evt_1');
    expect(() => verifyWebhook(body, headers, [generateSessionSecret()])).toThrow();
  });

  it('prints time, type, id, status and latency (or the error class) on one line', () => {
    const at = new Date('2026-05-01T10:00:00.000Z');
    const e = { event_type: 'payment.succeeded', event_id: 'evt_1' };
    expect(eventLine(at, e, { status: 200, latencyMs: 12 })).toMatch(
      /^2026-05-01T10:00:00.000Z\s+payment\.succeeded\s+evt_1\s+\[200\]\s+12 ms$/,
    );
    expect(eventLine(at, e, { status: null, latencyMs: 10_000, error: 'timeout' })).toMatch(/\[timeout\]\s+10000 ms$/);
  });
});
