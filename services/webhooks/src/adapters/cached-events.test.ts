import { MemoryEventStore } from '../domain/memory-ports.test-util';
import type { WebhookEventRecord } from '../domain/webhook-event';
import { CachedEventStore } from './cached-events';

const event = (id: string): WebhookEventRecord => ({
  event_id: id,
  event_type: 'payment.failed',
  merchant_id: 1,
  mode: 'sandbox',
  occurred_at: new Date('2026-05-01T10:00:00Z'),
  object_type: 'charge',
  object_id: 'ch_1',
  sequence: 1,
  data: {},
  source_event_id: `src_${id}`,
  created_at: new Date('2026-05-01T10:00:00Z'),
});

describe('CachedEventStore', () => {
  it('serves events it stored without reading the store, and only those it stored', async () => {
    const store = new MemoryEventStore();
    await store.insert({ ...event('evt_1'), sequence: 7 });
    const cached = new CachedEventStore(store);
    const reads = jest.spyOn(store, 'get');
    // evt_1 existed already: the store's copy (sequence 7) is what a read returns, not the candidate.
    expect([...(await cached.insertMany([event('evt_1'), event('evt_2')]))]).toEqual(['evt_2']);
    expect((await cached.get('evt_2'))?.event_id).toBe('evt_2');
    expect(reads).not.toHaveBeenCalled();
    expect((await cached.get('evt_1'))?.sequence).toBe(7);
    expect(await cached.get('evt_1')).not.toBeNull();
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('reads again once an entry is older than its TTL', async () => {
    const store = new MemoryEventStore();
    const cached = new CachedEventStore(store, 20);
    await cached.insertMany([event('evt_1')]);
    const reads = jest.spyOn(store, 'get');
    await new Promise((r) => setTimeout(r, 30));
    await cached.get('evt_1');
    expect(reads).toHaveBeenCalledTimes(1);
  });
});
