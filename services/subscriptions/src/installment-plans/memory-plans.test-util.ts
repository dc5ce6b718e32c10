import type { Mode, OutboxEntry } from '@ppay/kernel';
import { nextActionAt, type InstallmentPlanRecord } from './installment-plan';
import { sortKey, type PlanListQuery } from './list-query';
import type { InstallmentPlanRepository } from './ports';
import { clone, MemoryLeaseStore, type MemoryLeased } from '../renewals/memory-leases.test-util';

/** The in-memory plans store, with the Mongo one's conditional-write, lease and list rules. */

export class MemoryPlans
  extends MemoryLeaseStore<InstallmentPlanRecord, MemoryLeased<InstallmentPlanRecord>>
  implements InstallmentPlanRepository
{
  constructor() {
    super(nextActionAt);
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
