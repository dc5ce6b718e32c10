import { FakePayments } from '../fake-payments.test-util';
import { LeasedScheduler, type SchedulerOptions } from '../renewals/leased-scheduler';
import { SandboxClock } from '../renewals/sandbox-clock';
import { InstallmentCharges } from './installment-charges';
import { PLAN_CLOCK } from './installment-plan';
import { InstallmentPlanService } from './installment-plans';
import { MemoryPlans } from './memory-plans.test-util';
import { PAID_AT } from './plan-fixtures.test-util';
import { InstallmentCheckouts } from './plan-checkouts';

/** Installment plans over in-memory ports and a real time the test moves (`tick`), as main.ts wires them. */
export function planSetup(options: Partial<SchedulerOptions> = {}) {
  const plans = new MemoryPlans();
  const payments = new FakePayments();
  let real = Date.parse(PAID_AT);
  const realNow = () => new Date(real);
  const work = new InstallmentCharges({ plans, payments }, realNow);
  const scheduler = (owner = 'a') =>
    new LeasedScheduler(
      plans,
      work,
      { owner, leaseMs: 30_000, concurrency: 2, retryAfterErrorMs: 5_000, batchSize: 50, ...options },
      realNow,
    );
  return {
    plans,
    payments,
    checkouts: new InstallmentCheckouts(plans, realNow),
    service: new InstallmentPlanService(plans, realNow),
    scheduler,
    clock: (owner = 'a') => new SandboxClock(plans, scheduler(owner), PLAN_CLOCK, realNow),
    tick: (ms: number) => (real += ms),
    realNow,
  };
}

/** The subjects of the plan events written so far, without the `subscriptions.installment_plan.` prefix. */
export const planSubjects = (p: MemoryPlans) =>
  p.events.map((e) => e.subject.replace('subscriptions.installment_plan.', ''));

/** The idempotency keys payments was asked for, in order. */
export const keysAsked = (p: FakePayments) => p.calls.map((c) => c.idempotency_key);
