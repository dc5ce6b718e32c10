import { randomUUID } from 'node:crypto';
import { PlatformError } from '@ppay/kernel';
import { decodeStreamCursor, encodeStreamCursor, EventStream, STREAM_SETTLE_MS } from './event-stream';
import { MemoryEventStore, MemoryKeys, REFUNDED_DATA } from '../memory-ports.test-util';
import { renderEvent } from './renderers';
import type { WebhookEventRecord } from './webhook-event';

const T0 = new Date('2026-05-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function setup() {
  const events = new MemoryEventStore();
  const keys = new MemoryKeys();
  keys.add({ key_id: 'k1' });
  let now = T0;
  const stream = new EventStream({ events, keys }, () => now);
  const store = async (createdMs: number, over: Partial<WebhookEventRecord> = {}) => {
    const e: WebhookEventRecord = {
      event_id: `evt_${randomUUID()}`,
      event_type: 'payment.refunded',
      merchant_id: 1,
      mode: 'sandbox',
      occurred_at: at(createdMs),
      object_type: 'charge',
      object_id: 'ch_1',
      sequence: 1,
      data: REFUNDED_DATA,
      source_event_id: 's',
      created_at: at(createdMs),
      ...over,
    };
    await events.insert(e);
    return e;
  };
  return { stream, keys, store, setNow: (ms: number) => (now = at(ms)) };
}

describe('EventStream (listen)', () => {
  it('starts at "now", then returns only later events, oldest first, rendered for the key', async () => {
    const { stream, store, setNow } = setup();
    await store(-5_000); // before the session: never streamed
    setNow(0);
    const start = await stream.poll(1, 'sandbox', 'k1', {});
    expect(start.events).toEqual([]);
    const a = await store(100);
    const b = await store(200);
    setNow(200 + STREAM_SETTLE_MS - 1); // b is not settled yet
    const first = await stream.poll(1, 'sandbox', 'k1', { cursor: start.cursor });
    expect(first.events.map((e) => e.event_id)).toEqual([a.event_id]);
    expect(first.events[0]).toEqual({
      event_id: a.event_id,
      event_type: 'payment.refunded',
      api_version: '2026-03-27',
      body: renderEvent(a, '2026-03-27').body,
      cursor: first.cursor,
    });
    setNow(200 + STREAM_SETTLE_MS + 1);
    const second = await stream.poll(1, 'sandbox', 'k1', { cursor: first.cursor });
    expect(second.events.map((e) => e.event_id)).toEqual([b.event_id]);
    expect((await stream.poll(1, 'sandbox', 'k1', { cursor: second.cursor })).events).toEqual([]);
  });

  it("uses the key's version at poll time and filters by either name of a type", async () => {
    const { stream, keys, store, setNow } = setup();
    keys.add({ key_id: 'k1', api_version: '2025-06-01' });
    const e = await store(0);
    await store(1, { event_type: 'ping' });
    await store(2, { event_type: 'wallet.credited' }); // no 6.6 shape: never sent to this key
    setNow(5_000);
    const cursor = encodeStreamCursor({ created_at: at(-1), event_id: '' });
    const all = await stream.poll(1, 'sandbox', 'k1', { cursor });
    expect(all.events.map((x) => x.event_type)).toEqual(['refund.completed', 'ping']);
    const page = await stream.poll(1, 'sandbox', 'k1', { cursor, types: ['refund.completed'] });
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({ event_type: 'refund.completed', api_version: '2025-06-01' });
    expect(JSON.parse(page.events[0]!.body)).toMatchObject({ event_id: e.event_id, event_type: 'refund.completed' });
    // The cursor moves past the filtered-out event too, so it is not scanned again.
    expect(
      (await stream.poll(1, 'sandbox', 'k1', { cursor: page.cursor, types: ['refund.completed'] })).events,
    ).toEqual([]);
    expect(decodeStreamCursor(page.cursor).created_at).toEqual(at(2));
  });

  it("never shows another merchant's or the other mode's events, and pages at most 100", async () => {
    const { stream, store, setNow } = setup();
    await store(0, { merchant_id: 2 });
    await store(0, { mode: 'live' });
    for (let i = 1; i <= 101; i++) await store(i);
    setNow(10_000);
    const cursor = encodeStreamCursor({ created_at: at(-1), event_id: '' });
    const page = await stream.poll(1, 'sandbox', 'k1', { cursor, limit: 500 });
    expect(page.events).toHaveLength(100);
    expect(page.events.every((e) => JSON.parse(e.body).business_id === '1')).toBe(true);
    expect((await stream.poll(1, 'sandbox', 'k1', { cursor: page.cursor })).events).toHaveLength(1);
  });

  it('ends for a disabled, unknown or foreign key and refuses a cursor it did not issue', async () => {
    const { stream, keys } = setup();
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (err: PlatformError) => err.code,
      );
    keys.add({ key_id: 'off', active: false });
    keys.add({ key_id: 'other', merchant_id: 2 });
    expect(await code(stream.poll(1, 'sandbox', 'off', {}))).toBe('INVALID_API_KEY');
    expect(await code(stream.poll(1, 'sandbox', 'nope', {}))).toBe('INVALID_API_KEY');
    expect(await code(stream.poll(1, 'sandbox', 'other', {}))).toBe('INVALID_API_KEY');
    expect(await code(stream.poll(1, 'live', 'k1', {}))).toBe('INVALID_API_KEY');
    expect(await code(stream.poll(1, 'sandbox', undefined, {}))).toBe('INVALID_API_KEY');
    for (const bad of [
      'x',
      Buffer.from('s1|not a date|').toString('base64url'),
      Buffer.from('s1|2026-05-01T10:00:00Z|evt_1').toString('base64url'),
    ])
      expect(await code(stream.poll(1, 'sandbox', 'k1', { cursor: bad }))).toBe('INVALID_CURSOR');
  });
});
