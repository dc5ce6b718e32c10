import { Counter, Gauge, type Registry } from 'prom-client';
import type { DisputeFunds } from '@ppay/kernel';
import type { DisputeRecord } from './dispute';
import type { ClosedBy } from './dispute-closing';

/** Disputes opened and closed, the money they moved, and those about to be lost unanswered (alerted on). */
export function disputeMetrics(registry: Registry) {
  const opened = new Counter({
    name: 'ppay_disputes_opened_total',
    help: 'Disputes opened, by reason and mode',
    labelNames: ['reason', 'mode'],
    registers: [registry],
  });
  const closed = new Counter({
    name: 'ppay_disputes_closed_total',
    help: 'Disputes closed, by reason, outcome (won, lost) and how (processor, accepted, expired: past due unanswered)',
    labelNames: ['reason', 'outcome', 'closed_by', 'mode'],
    registers: [registry],
  });
  const funds = new Counter({
    name: 'ppay_dispute_funds_minor_units_total',
    help: 'Minor units taken from wallets when disputes opened (withdrawn) and given back when won (reinstated), by currency',
    labelNames: ['direction', 'currency'],
    registers: [registry],
  });
  const unanswered = new Gauge({
    name: 'ppay_disputes_unanswered_due_soon',
    help: 'Disputes without any evidence whose evidence is due within 24 hours',
    registers: [registry],
  });
  const count = (direction: 'withdrawn' | 'reinstated', moved: readonly DisputeFunds[]) => {
    for (const f of moved) funds.inc({ direction, currency: f.amount.currency }, f.amount.amount);
  };
  return {
    unanswered,
    opened(d: DisputeRecord) {
      opened.inc({ reason: d.reason, mode: d.mode });
      count('withdrawn', d.funds_withdrawn);
    },
    closed(d: DisputeRecord, by: ClosedBy) {
      closed.inc({ reason: d.reason, outcome: d.status, closed_by: by, mode: d.mode });
      count('reinstated', d.funds_reinstated);
    },
  };
}
