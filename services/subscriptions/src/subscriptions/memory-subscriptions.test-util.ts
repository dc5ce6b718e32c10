import type { Mode, OutboxEntry } from '@ppay/kernel';
import { clone, MemoryLeaseStore, type MemoryLeased } from '../renewals/memory-leases.test-util';
import { SORT_FIELDS, type ListQuery, type SortSpec } from './list-query';
import type { SubscriptionRepository } from './ports';
import { nextActionAt, type SubscriptionRecord } from './subscription';

/** The in-memory subscriptions store, with the same conditional-write and lease rules as the Mongo one. */

interface Stored extends MemoryLeased<SubscriptionRecord> {
  origin: string;
}

export class MemorySubscriptions
  extends MemoryLeaseStore<SubscriptionRecord, Stored>
  implements SubscriptionRepository
{
  constructor() {
    super(nextActionAt);
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
