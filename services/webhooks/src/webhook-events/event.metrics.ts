import { Counter, type Registry } from 'prom-client';

/** Platform events stored for webhook delivery (the delivery metrics: deliveries/delivery.metrics.ts). */
export function eventMetrics(registry: Registry) {
  return {
    events: new Counter({
      name: 'ppay_webhook_events_total',
      help: 'Platform events stored for webhook delivery, by event type',
      labelNames: ['event_type'],
      registers: [registry],
    }),
  };
}

export type EventMetrics = ReturnType<typeof eventMetrics>;
