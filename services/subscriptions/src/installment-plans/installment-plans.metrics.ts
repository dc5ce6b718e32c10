import { Counter, Histogram, type Registry } from 'prom-client';
import type { Logger } from '@ppay/runtime';
import type { SchedulerObserver } from '../renewals/leased-scheduler';
import type { InstallmentObserver } from './installment-charges';

/** Installment metrics: the parts the scheduler charges, the plans that end, and the scheduler's claims and errors. */
export function installmentMetrics(registry: Registry, log: Logger): SchedulerObserver & InstallmentObserver {
  const parts = new Counter({
    name: 'ppay_installment_parts_total',
    help: 'Later installment parts charged off-session and recorded on their plan, by outcome (succeeded, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'ppay_installment_part_seconds',
    help: 'Time from asking payments for an installment part to recording its outcome on the plan',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const ended = new Counter({
    name: 'ppay_installment_plans_ended_total',
    help: 'Installment plans the scheduler finished, by status (completed, defaulted)',
    labelNames: ['status'],
    registers: [registry],
  });
  const claims = new Counter({
    name: 'ppay_installment_claims_total',
    help: 'Installment plans claimed under a lease, by who claimed (scheduler, sandbox clock)',
    labelNames: ['via'],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'ppay_installment_scheduler_errors_total',
    help: 'Scheduler passes on one installment plan that failed and will be retried after a delay',
    registers: [registry],
  });
  return {
    part(outcome, seconds) {
      parts.inc({ outcome });
      duration.observe(seconds);
    },
    planEnded(status) {
      ended.inc({ status });
    },
    claimed(via) {
      claims.inc({ via });
    },
    error(err, planId) {
      errors.inc();
      log.warn({ err, plan_id: planId }, 'installment step failed; will retry');
    },
  };
}
