import { Counter, type Registry } from 'prom-client';

/** Counts each call by operation and outcome; `authFailure` is the alert for a key Stripe refuses. */
export interface StripeObserver {
  call(operation: string, outcome: string): void;
  authFailure(): void;
}

/** Every Stripe call by operation and outcome, and the alert for a key Stripe refuses. */
export function stripeMetrics(registry: Registry): StripeObserver {
  const calls = new Counter({
    name: 'ppay_processor_calls_total',
    help: 'Calls to a payment processor, by processor, operation and outcome (ok, declined, unavailable, timeout, authentication, refused)',
    labelNames: ['processor', 'operation', 'outcome'],
    registers: [registry],
  });
  const authFailures = new Counter({
    name: 'ppay_processor_auth_failures_total',
    help: 'Processor calls refused for the platform key (wrong, revoked or lacking permission): an operator must act',
    labelNames: ['processor'],
    registers: [registry],
  });
  return {
    call: (operation, outcome) => calls.inc({ processor: 'stripe', operation, outcome }),
    authFailure: () => authFailures.inc({ processor: 'stripe' }),
  };
}
