import { Counter, Gauge, type Registry } from 'prom-client';
import type { LiveReconcileReport } from './live-charge-reconciler';

/**
 * The reconciler of live charges: look-ups by outcome (succeeded / failed: an event was missed) and the
 * watched live charges still pending past the threshold (its alert).
 */
export function liveReconcilerMetrics(registry: Registry) {
  const lookUps = new Counter({
    name: 'ppay_live_charge_lookups_total',
    help: 'Live charges looked up at their processor by the reconciler, by outcome (succeeded and failed: its event was missed; pending, error, given_up)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const stale = new Gauge({
    name: 'ppay_live_charges_pending_stale',
    help: 'Live charges still pending longer than LIVE_CHARGE_RECONCILE_AFTER_MS (and younger than its max age), as of the last reconciler run',
    registers: [registry],
  });
  return (report: LiveReconcileReport) => {
    for (const [outcome, n] of Object.entries(report.outcomes)) lookUps.inc({ outcome }, n);
    stale.set(report.stale);
  };
}
