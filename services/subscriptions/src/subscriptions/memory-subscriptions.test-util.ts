import type { Mode, OutboxEntry } from '@ppay/kernel';
import { SORT_FIELDS, type ListQuery, type SortSpec } from './list-query';
import type { SubscriptionRepository } from './ports';
import { nextActionAt, type SubscriptionRecord } from './subscription';

/** The in-memory subscriptions store, with the same conditional-write and lease rules as the Mongo one. */

/** A deep copy whose Dates are this realm's Dates (structuredClone's are not `instanceof Date` under jest). */
export function clone<T>(v: T): T {
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) return v.map(clone) as T;
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)])) as T;
  }
  return v;
}

interface Stored {
  rec: SubscriptionRecord;
  origin: string;
  lease_owner: string | null;
  lease_until: Date;
}

export class MemorySubscriptions implements SubscriptionRepository {
  readonly docs = new Map<string, Stored>();
  readonly events: OutboxEntry[] = [];

  private wakeAt(rec: SubscriptionRecord): Date | null {
    const at = nextActionAt(rec);
    return at ? new Date(at.getTime() - rec.clock_offset_ms) : null;
  }

  async insertOrGetBySession(rec: SubscriptionRecord, events: OutboxEntry[]) {
    const origin = rec.checkout_session_id ? `session:${rec.checkout_session_id}` : `id:${rec.id}`;
    const taken = [...this.docs.values()].find((d) => d.origin === origin);
    if (taken) return { subscription: clone(taken.rec), created: false };
    this.docs.set(rec.id, { rec: clone(rec), origin, lease_owner: null, lease_until: new Date(0) });
    this.events.push(...events);
    return { subscription: clone(rec), created: true };
  }
  async findBySession(merchantId: number, mode: Mode, sessionId: string) {
    const d = [...this.docs.values()].find((x) => x.origin === `session:${sessionId}`);
    return d && d.rec.merchant_id === merchantId && d.rec.mode === mode ? clone(d.rec) : null;
  }
  async findForMerchant(merchantId: number, mode: Mode, id: string) {
    const d = this.docs.get(id);
    return d && d.rec.merchant_id === merchantId && d.rec.mode === mode ? clone(d.rec) : null;
  }
  async findById(id: string) {
    const d = this.docs.get(id);
    return d ? clone(d.rec) : null;
  }
  async save(
    next: SubscriptionRecord,
    events: OutboxEntry[],
    lease?: { owner: string; until: Date; release?: boolean },
  ) {
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
  async list(merchantId: number, mode: Mode, query: ListQuery, sort: SortSpec) {
    const value = (r: SubscriptionRecord, field: string): unknown => {
      if (field === SORT_FIELDS.actual_price) return r.amount.amount;
      return (r as unknown as Record<string, unknown>)[field];
    };
    const cmp = (a: unknown, b: unknown) => {
      const x = a instanceof Date ? a.getTime() : a;
      const y = b instanceof Date ? b.getTime() : b;
      if (x === y) return 0;
      if (x === null || x === undefined) return -1; // nulls first, as MongoDB sorts them ascending
      if (y === null || y === undefined) return 1;
      return (x as number) < (y as number) ? -1 : 1;
    };
    const all = [...this.docs.values()]
      .map((d) => d.rec)
      .filter((r) => r.merchant_id === merchantId && r.mode === mode)
      .filter((r) => !query.status || r.status === query.status)
      .filter((r) => query.product_id === undefined || r.product.id === query.product_id)
      .sort((a, b) => {
        for (const [field, dir] of sort) {
          const c = cmp(value(a, field), value(b, field));
          if (c !== 0) return c * dir;
        }
        return 0;
      });
    return { items: all.slice(query.offset, query.offset + query.limit).map(clone), total: all.length };
  }
}
