import { requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { SandboxClock } from '../renewals/sandbox-clock';
import { installmentPlanResource, type InstallmentPlanRecord } from './installment-plan';
import type { InstallmentPlanService } from './installment-plans';

type Handlers = UnaryHandlers<types.subscriptions.SubscriptionsServiceHandlers>;

/** Decode, call the use case, encode: the REST shape is installmentPlanResource (installment-plan.ts). */
export function installmentPlanHandlers(
  plans: InstallmentPlanService,
  clock: SandboxClock<InstallmentPlanRecord>,
  /** Publishes a plan's pending outbox events now (the sandbox clock answers after its events are out). */
  flushEvents: (id: string) => Promise<void> = async () => undefined,
  realNow: () => Date = () => new Date(),
): Partial<Handlers> {
  const resource = (rec: InstallmentPlanRecord) => toWire(installmentPlanResource(rec, realNow()));
  return {
    async ListInstallmentPlans(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const page = await plans.list(merchantId, requireMode(caller), {
        // proto3 zero values are "absent".
        status: req.status,
        customer_email: req.customer_email,
        from: req.from,
        to: req.to,
        limit: req.limit || undefined,
        cursor: req.cursor,
      });
      return toWire({
        installment_plans: page.plans.map(resource),
        has_more: page.has_more,
        next_cursor: page.next_cursor,
      });
    },
    async GetInstallmentPlan(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return resource(await plans.get(merchantId, requireMode(caller), req.plan_id));
    },
    async CancelInstallmentPlan(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return resource(await plans.cancel(merchantId, requireMode(caller), req.plan_id));
    },
    async AdvanceInstallmentPlanClock(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const rec = await clock.advance(merchantId, requireMode(caller), req.plan_id, req.to, deadline);
      await flushEvents(rec.id);
      return resource(rec);
    },
  };
}
