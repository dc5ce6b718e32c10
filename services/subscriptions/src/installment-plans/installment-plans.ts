import { PlatformError, SUBJECTS, type Mode } from '@ppay/kernel';
import { clockOf } from '../subscriptions/subscription';
import { planEventFor, planNotFound, type InstallmentPlanRecord } from './installment-plan';
import { cancelPlan } from './lifecycle';
import { cursorOf, parsePlanListQuery, sortKey, type PlanListInput } from './list-query';
import type { InstallmentPlanRepository } from './ports';

const MAX_WRITE_RETRIES = 5;

/** The merchant's installment plan use cases: read, listed and cancelled. Checkouts create them, the scheduler charges them. */
export class InstallmentPlanService {
  constructor(
    private readonly plans: InstallmentPlanRepository,
    private readonly realNow: () => Date = () => new Date(),
  ) {}

  async get(merchantId: number, mode: Mode, id: string): Promise<InstallmentPlanRecord> {
    const rec = await this.plans.findForMerchant(merchantId, mode, id);
    if (!rec) throw planNotFound();
    return rec;
  }

  async list(merchantId: number, mode: Mode, raw: PlanListInput) {
    const query = parsePlanListQuery(raw);
    const { items, has_more } = await this.plans.list(merchantId, mode, query);
    const last = items[items.length - 1];
    return {
      plans: items,
      has_more,
      next_cursor: has_more && last ? cursorOf(sortKey(last.created_at, last.id)) : null,
    };
  }

  /**
   * No later part is charged (a charge already in flight is recorded when it lands); paid parts stay
   * paid. A second cancel answers the cancelled plan; a completed or defaulted one is 409.
   */
  async cancel(merchantId: number, mode: Mode, id: string): Promise<InstallmentPlanRecord> {
    for (let i = 0; i < MAX_WRITE_RETRIES; i++) {
      const rec = await this.get(merchantId, mode, id);
      const now = clockOf(rec, this.realNow());
      const { plan, changed } = cancelPlan(rec, now);
      if (!changed) return rec;
      const saved = await this.plans.save(plan, [planEventFor(SUBJECTS.installmentPlanCancelled, plan, now)]);
      if (saved) return saved;
    }
    throw new PlatformError('CONFLICT', undefined, { param: 'plan_id' });
  }
}
