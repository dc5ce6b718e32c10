import type { Mode, OutboxEntry } from '@ppay/kernel';
import { nextActionAt, type InstallmentPlanRecord } from './installment-plan';
import { sortKey, type PlanListQuery } from './list-query';
import type { InstallmentPlanRepository } from './ports';
import { clone } from '../subscriptions/memory-subscriptions.test-util';

/** The in-memory plans store, with the Mongo one's conditional-write, lease and list rules. */

interface Stored {
  rec: InstallmentPlanRecord;
  lease_owner: string | null;
  lease_until: Date;
}

export class MemoryPlans implements InstallmentPlanRepository {
  readonly docs = new Map<string, Stored>();
  readonly events: OutboxEntry[] = [];
  /** Throws on the next `save` calls (a crash between writes). */
  failSaves = 0;

  private wakeAt(rec: InstallmentPlanRecord): Date | null {
    const at = nextActionAt(rec);
    return at ? new Date(at.getTime() - rec.clock_offset_ms) : null;
  }

  async insertOrGet(rec: InstallmentPlanRecord, events: OutboxEntry[]) {
    const taken = this.docs.get(rec.id);
    if (taken) return { plan: clone(taken.rec), created: false };
    this.docs.set(rec.id, { rec: clone(rec), lease_owner: null, lease_until: new Date(0) });
    this.events.push(...events);
    return { plan: clone(rec), created: true };
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
    next: InstallmentPlanRecord,
    events: OutboxEntry[],
    lease?: { owner: string; until: Date; release?: boolean },
  ) {
    if (this.failSaves > 0) {
      this.failSaves--;
      throw new Error('database unavailable');
    }
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
  async list(merchantId: number, mode: Mode, q: PlanListQuery) {
    const key = (r: InstallmentPlanRecord) => sortKey(r.created_at, r.id);
    const all = [...this.docs.values()]
      .map((d) => d.rec)
      .filter((r) => r.merchant_id === merchantId && r.mode === mode)
      .filter((r) => !q.status || r.status === q.status)
      .filter((r) => !q.customer_email || r.customer.email === q.customer_email)
      .filter((r) => q.from_key === undefined || key(r) >= q.from_key)
      .filter((r) => q.before_key === undefined || key(r) < q.before_key)
      .sort((a, b) => (key(a) < key(b) ? 1 : -1));
    return { items: all.slice(0, q.limit).map(clone), has_more: all.length > q.limit };
  }
}
