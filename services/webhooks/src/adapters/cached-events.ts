import { TtlCache } from '@ppay/kernel';
import type { EventStore } from '../domain/ports';
import type { WebhookEventRecord } from '../domain/webhook-event';

/**
 * The event store with the events this process stored or read recently kept in memory: a stored
 * event never changes, and the worker reads each one for every attempt right after the fan-out
 * wrote it. Bounded in count and age; a miss (another replica's event, a restart) reads the store.
 */
export class CachedEventStore implements EventStore {
  private readonly cache: TtlCache<string, WebhookEventRecord>;

  constructor(
    private readonly store: EventStore,
    private readonly ttlMs = 10 * 60_000,
    maxEntries = 20_000,
  ) {
    this.cache = new TtlCache(maxEntries);
  }

  async insert(event: WebhookEventRecord): Promise<boolean> {
    const inserted = await this.store.insert(event);
    if (inserted) this.cache.set(event.event_id, event, this.ttlMs);
    return inserted;
  }

  async insertMany(events: WebhookEventRecord[]): Promise<Set<string>> {
    const inserted = await this.store.insertMany(events);
    for (const e of events) if (inserted.has(e.event_id)) this.cache.set(e.event_id, e, this.ttlMs);
    return inserted;
  }

  async get(eventId: string): Promise<WebhookEventRecord | null> {
    const hit = this.cache.peek(eventId);
    if (hit) return hit.value;
    const event = await this.store.get(eventId);
    if (event) this.cache.set(eventId, event, this.ttlMs);
    return event;
  }

  getForMerchant: EventStore['getForMerchant'] = (...args) => this.store.getForMerchant(...args);
  list: EventStore['list'] = (q) => this.store.list(q);
  listCreatedAfter: EventStore['listCreatedAfter'] = (q) => this.store.listCreatedAfter(q);

  async deleteOlderThan(before: Date, limit: number): Promise<number> {
    const n = await this.store.deleteOlderThan(before, limit);
    // Whatever is cached is younger than the retention in practice (ttlMs is minutes); nothing to evict.
    return n;
  }
}
