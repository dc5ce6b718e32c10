import { Counter, type Registry } from 'prom-client';

/** Event types a label may carry; anything else counts as `other` (labels stay bounded). */
const KNOWN_TYPES = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed']);

/**
 * Inbound processor events by processor, type and outcome: signature_invalid (refused, nothing stored),
 * ignored, received, duplicate, then applied / duplicate / superseded / stale / mismatch / unmatched when applied.
 * signature_invalid, mismatch and stale are the alerting ones.
 */
export function processorEventMetrics(registry: Registry) {
  const events = new Counter({
    name: 'ppay_processor_events_total',
    help: 'Inbound payment processor events, by processor, type and outcome (signature_invalid, ignored, received, duplicate, applied, superseded, stale, mismatch, unmatched)',
    labelNames: ['processor', 'type', 'outcome'],
    registers: [registry],
  });
  return {
    count: (processor: string, type: string, outcome: string) =>
      events.inc({ processor, type: KNOWN_TYPES.has(type) ? type : 'other', outcome }),
  };
}
