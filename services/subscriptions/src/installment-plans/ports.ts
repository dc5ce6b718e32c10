import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { LeaseStore } from '../renewals/leased-scheduler';
import type { InstallmentPlanRecord } from './installment-plan';
import type { PlanListQuery } from './list-query';

/** Ports only installment plans use. */

/**
 * The plans' store (installment-plan.repo.ts): checkouts create, the merchant's use cases read and cancel,
 * and the leased scheduler charges (`dueIds`, `claim`, `release`: due on the plan's own clock).
 */
export interface InstallmentPlanRepository extends LeaseStore<InstallmentPlanRecord> {
  /** Inserts with its events in the outbox; when the id exists already, returns that plan (created: false). */
  insertOrGet(
    rec: InstallmentPlanRecord,
    events: OutboxEntry[],
  ): Promise<{ plan: InstallmentPlanRecord; created: boolean }>;
  findForMerchant(merchantId: number, mode: Mode, id: string): Promise<InstallmentPlanRecord | null>;
  findById(id: string): Promise<InstallmentPlanRecord | null>;
  /**
   * Writes `next` (version + 1) and its events only while the stored version is still `next.version`
   * (and, with `lease`, while `lease.owner` holds it: extended to `lease.until`, or given back with
   * `release`); null when someone else wrote first.
   */
  save(
    next: InstallmentPlanRecord,
    events: OutboxEntry[],
    lease?: { owner: string; until: Date; release?: boolean },
  ): Promise<InstallmentPlanRecord | null>;
  /** Newest first; `has_more` when another page follows the last item. */
  list(
    merchantId: number,
    mode: Mode,
    query: PlanListQuery,
  ): Promise<{ items: InstallmentPlanRecord[]; has_more: boolean }>;
}
