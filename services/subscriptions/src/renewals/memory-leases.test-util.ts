import type { OutboxEntry } from '@ppay/kernel';
import type { LeaseStore } from './leased-scheduler';

/** A deep copy whose Dates are this realm's Dates (structuredClone's are not `instanceof Date` under jest). */
export function clone<T>(v: T): T {
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) return v.map(clone) as T;
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)])) as T;
  }
  return v;
}

/** One stored item of an in-memory lease store, with its lease. */
export interface MemoryLeased<T> {
  rec: T;
  lease_owner: string | null;
  lease_until: Date;
}

/**
 * The conditional writes and leases of the Mongo repositories of scheduled documents (subscriptions,
 * installment plans), in memory: `save` only over the version read (and the lease held), `claim` only
 * when free (and due).
 */
export class MemoryLeaseStore<
  T extends { id: string; version: number; clock_offset_ms: number },
  S extends MemoryLeased<T>,
> implements LeaseStore<T> {
  readonly docs = new Map<string, S>();
  readonly events: OutboxEntry[] = [];

  constructor(private readonly nextActionAt: (rec: T) => Date | null) {}

  private wakeAt(rec: T): Date | null {
    const at = this.nextActionAt(rec);
    return at ? new Date(at.getTime() - rec.clock_offset_ms) : null;
  }

  async save(next: T, events: OutboxEntry[], lease?: { owner: string; until: Date; release?: boolean }) {
    const d = this.docs.get(next.id);
    if (!d || d.rec.version !== next.version) return null;
    if (lease && d.lease_owner !== lease.owner) return null;
    d.rec = clone({ ...next, version: next.version + 1 });
    if (lease) d.lease_until = lease.release ? new Date(0) : lease.until;
    if (lease?.release) d.lease_owner = null;
    this.events.push(...events);
    return clone(d.rec);
  }
  async dueIds(realNow: Date, limit: number) {
    return [...this.docs.values()]
      .filter((d) => {
        const wake = this.wakeAt(d.rec);
        return wake !== null && wake <= realNow && d.lease_until <= realNow;
      })
      .sort((a, b) => this.wakeAt(a.rec)!.getTime() - this.wakeAt(b.rec)!.getTime())
      .slice(0, limit)
      .map((d) => d.rec.id);
  }
  async claim(id: string, realNow: Date, owner: string, leaseMs: number, options: { dueOnly?: boolean } = {}) {
    const d = this.docs.get(id);
    if (!d || d.lease_until > realNow) return null;
    if (options.dueOnly) {
      const wake = this.wakeAt(d.rec);
      if (!wake || wake > realNow) return null;
    }
    d.lease_owner = owner;
    d.lease_until = new Date(realNow.getTime() + leaseMs);
    return clone(d.rec);
  }
  async release(id: string, owner: string, retryAt?: Date) {
    const d = this.docs.get(id);
    if (d?.lease_owner === owner) {
      d.lease_owner = null;
      d.lease_until = retryAt ?? new Date(0);
    }
  }
}
