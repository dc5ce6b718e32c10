import type { InboxRecord, InboxStatus, ProcessorEventRepository } from './processor-events';

/** The inbox in memory: one record per id, as the unique `_id` keeps it in MongoDB. */
export class MemoryProcessorEvents implements ProcessorEventRepository {
  readonly docs = new Map<string, InboxRecord>();

  async insert(record: InboxRecord): Promise<boolean> {
    if (this.docs.has(record.id)) return false;
    this.docs.set(record.id, structuredClone(record));
    return true;
  }
  async due(now: Date, limit: number): Promise<InboxRecord[]> {
    return [...this.docs.values()]
      .filter((r) => r.status === 'received' && r.next_attempt_at <= now)
      .sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime())
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }
  async finish(id: string, status: Exclude<InboxStatus, 'received'>, note: string | null, now: Date): Promise<void> {
    const r = this.docs.get(id);
    if (r?.status === 'received') Object.assign(r, { status, note, finished_at: now });
  }
  async postpone(id: string, until: Date): Promise<void> {
    const r = this.docs.get(id);
    if (r?.status === 'received') Object.assign(r, { next_attempt_at: until, attempts: r.attempts + 1 });
  }
}
