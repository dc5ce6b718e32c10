import { Counter, type Registry } from 'prom-client';

/**
 * Inbound processor events by processor, type and outcome: signature_invalid (refused, nothing stored),
 * ignored, received, duplicate, then applied / duplicate / superseded / stale / mismatch / unmatched when applied.
 * signature_invalid, mismatch and stale are the alerting ones.
 */
export function processorEventMetrics(registry: Registry, handledTypes: Iterable<string>) {
  // The types a label may carry are those the connectors handle; anything else is `other` (labels stay bounded).
  const known = new Set(handledTypes);
  const events = new Counter({
    name: 'ppay_processor_events_total',
    help: 'Inbound payment processor events, by processor, type and outcome (signature_invalid, ignored, received, duplicate, applied, superseded, stale, mismatch, unmatched)',
    labelNames: ['processor', 'type', 'outcome'],
    registers: [registry],
  });
  return {
    count: (processor: string, type: string, outcome: string) =>
      events.inc({ processor, type: known.has(type) ? type : 'other', outcome }),
  };
}
