import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Webhook delivery metrics (spec 6.3: 10 s timeout, 3 attempts, 2 s apart). Declared with the
 * service so dashboards exist before the first delivery; the delivery worker records them.
 */
export function deliveryMetrics(registry: Registry) {
  return {
    attempts: new Counter({
      name: 'ppay_webhook_delivery_attempts_total',
      help: 'Webhook HTTP attempts, by event type and outcome (success, or the error_class of adapters/http-sender.ts)',
      labelNames: ['event_type', 'outcome'],
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'ppay_webhook_deliveries_total',
      help: 'Webhook events finished, by event type and result (delivered, exhausted)',
      labelNames: ['event_type', 'result'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'ppay_webhook_delivery_duration_seconds',
      help: "Time for one webhook attempt, until the receiver's response or the 10 s timeout",
      labelNames: ['event_type'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers: [registry],
    }),
    attemptsPerEvent: new Histogram({
      name: 'ppay_webhook_attempts_per_event',
      help: 'Attempts an event needed before it was delivered or given up (1 to 3)',
      buckets: [1, 2, 3],
      registers: [registry],
    }),
  };
}
