import { Counter, Histogram, type Registry } from 'prom-client';
import type { Logger } from '@ppay/runtime';
import type { SchedulerObserver } from './leased-scheduler';
import type { RenewalObserver } from './renewals';

/** Renewal scheduler metrics: what the leased scheduler claims and fails, and the renewals' outcomes. */
export function renewalMetrics(registry: Registry, log: Logger): SchedulerObserver & RenewalObserver {
  const renewals = new Counter({
    name: 'ppay_subscription_renewals_total',
    help: 'Renewal charges recorded on subscriptions, by outcome (succeeded, failed, late: after a cancel)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'ppay_subscription_renewal_seconds',
    help: 'Time from starting a renewal attempt to recording its outcome (payments call included)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const claims = new Counter({
    name: 'ppay_subscription_claims_total',
    help: 'Subscriptions claimed under a lease, by who claimed (scheduler, sandbox clock)',
    labelNames: ['via'],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'ppay_subscription_scheduler_errors_total',
    help: 'Scheduler passes on one subscription that failed and will be retried after a delay',
    registers: [registry],
  });
  return {
    renewal(outcome, seconds) {
      renewals.inc({ outcome });
      duration.observe(seconds);
    },
    claimed(via) {
      claims.inc({ via });
    },
    error(err, subscriptionId) {
      errors.inc();
      log.warn({ err, subscription_id: subscriptionId }, 'renewal step failed; will retry');
    },
  };
}
