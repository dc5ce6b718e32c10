import { Counter, type Registry } from 'prom-client';
import type { TransferOutcome } from './payout-transfers';

/** Live connected-account payouts' transfers by outcome (created, refused, unknown, reversed). */
export function payoutTransferMetrics(registry: Registry): (outcome: TransferOutcome) => void {
  const transfers = new Counter({
    name: 'ppay_payout_transfers_total',
    help: 'Connected-account payout transfers by outcome: created (paid), refused (failed, released), unknown (timeout or unavailable: asked again), reversed (paid, then taken back)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Each outcome shown from zero, so a first refusal is a rise rather than a new series.
  for (const outcome of ['created', 'refused', 'unknown', 'reversed']) transfers.inc({ outcome }, 0);
  return (outcome) => transfers.inc({ outcome });
}
