import { SUBJECTS, type InstallmentCheckoutCompleted, type Mode } from '@ppay/kernel';
import { newInstallmentPlan, planEventFor, type InstallmentPlanRecord } from './installment-plan';
import type { InstallmentPlanRepository } from './ports';

/**
 * payments' paid installment checkouts → plans: the first part was paid on the hosted page with the card
 * saved, so the plan starts `active` with part 1 paid and the schedule anchored at that payment.
 * Idempotent by plan id (payments chose it when the session was created): a redelivery finds the plan.
 */
export class InstallmentCheckouts {
  constructor(
    private readonly plans: InstallmentPlanRepository,
    private readonly realNow: () => Date = () => new Date(),
  ) {}

  async checkoutCompleted(mode: Mode, c: InstallmentCheckoutCompleted): Promise<InstallmentPlanRecord> {
    const paidAt = new Date(c.completed_at);
    const draft = newInstallmentPlan({
      id: c.plan_id,
      merchant_id: c.merchant_id,
      mode,
      product: c.product,
      customer: c.customer,
      total: c.total,
      count: c.count,
      interval: c.interval,
      payment_method_id: c.payment_method_id,
      card: c.card,
      checkout_session_id: c.session_id,
      metadata: c.metadata,
      first: { charge_id: c.charge_id, paid_at: paidAt },
    });
    const rec = { ...draft, updated_at: this.realNow() };
    const { plan } = await this.plans.insertOrGet(rec, [planEventFor(SUBJECTS.installmentPlanCreated, rec, paidAt)]);
    return plan;
  }
}
