import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryMetricsPort } from './ports';
import type { SendResult } from '../ports';

/**
 * Webhook delivery metrics (spec 6.3: 10 s timeout, 3 attempts, 2 s apart). The delivery worker
 * records attempts and finished deliveries; a job samples the pending gauge.
 */
export function deliveryMetrics(registry: Registry) {
  return {
    attempts: new Counter({
      name: 'ppay_webhook_delivery_attempts_total',
      help: 'Webhook HTTP attempts, by event type and outcome (success, or the error_class of deliveries/http-sender.adapter.ts)',
      labelNames: ['event_type', 'outcome'],
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'ppay_webhook_deliveries_total',
      help: 'Webhook deliveries finished, by event type and outcome (delivered, failed)',
      labelNames: ['event_type', 'outcome'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'ppay_webhook_delivery_duration_seconds',
      help: "Time for one webhook attempt, until the receiver's response or the 10 s timeout",
      labelNames: ['event_type'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers: [registry],
    }),
    attemptsPerEvent: new Histogram({
      name: 'ppay_webhook_attempts_per_event',
      help: 'Attempts a delivery needed before it was delivered or given up (1 to 3 per round)',
      buckets: [1, 2, 3],
      registers: [registry],
    }),
    pending: new Gauge({
      name: 'ppay_webhook_deliveries_pending',
      help: 'Deliveries waiting for an attempt or being sent (sampled every few seconds)',
      registers: [registry],
    }),
    firstAttempts: new Counter({
      name: 'ppay_webhook_first_attempts_total',
      help: "New deliveries' first attempts by how they got a send slot: at_once, after_wait, or stored (none within 1 s: stored as due work and claimed, several times the database work)",
      labelNames: ['path'],
      registers: [registry],
    }),
  };
}

export type DeliveryMetrics = ReturnType<typeof deliveryMetrics>;

export function deliveryMetricsPort(m: DeliveryMetrics): DeliveryMetricsPort {
  return {
    attempt(eventType: string, result: SendResult) {
      m.attempts.inc({
        event_type: eventType,
        outcome: result.success ? 'success' : (result.error_class ?? 'unknown'),
      });
      m.latency.observe({ event_type: eventType }, result.duration_ms / 1000);
    },
    finished(eventType: string, outcome: 'delivered' | 'failed', attempts: number) {
      m.deliveries.inc({ event_type: eventType, outcome });
      if (attempts > 0) m.attemptsPerEvent.observe(attempts);
    },
    firstAttempt(path) {
      m.firstAttempts.inc({ path });
    },
  };
}
