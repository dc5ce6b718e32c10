import { defineConsumer, PlatformError, SUBJECTS, type ConsumerSpec } from '@ppay/kernel';
import { creditsFor } from '../domain/ledger';
import type { LedgerRepository, SplitResolver, SplitTerms } from '../domain/ports';
import type { ledgerMetrics } from './metrics';

/**
 * payment.succeeded → wallet credits. Safe to see the same event any number of times: every entry
 * carries an idempotency key per charge and beneficiary. A failure (e.g. marketplace unreachable
 * while resolving a split) throws, so JetStream redelivers later.
 */
export function ledgerConsumer(
  ledger: LedgerRepository,
  splits: SplitResolver,
  metrics: ReturnType<typeof ledgerMetrics>,
  now: () => Date = () => new Date(),
): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'payments_ledger',
    subjects: [SUBJECTS.paymentSucceeded],
    async handle(event) {
      const outcome = event.data;
      let split: SplitTerms | null = null;
      if (outcome.sub_merchant_id) {
        // Activeness is judged when the payment succeeds (spec 4.1 step 4), not when it was created.
        split = await splits.resolve(outcome.merchant_id, outcome.sub_merchant_id).catch((err: unknown) => {
          // Only a definite "no such relationship" skips the sub-merchant; anything else retries later.
          if (err instanceof PlatformError && err.code === 'RELATIONSHIP_NOT_FOUND') {
            return { active: false, commission_rate: '0', commission_source: 'none' };
          }
          throw err;
        });
      }
      // Sandbox and live money never share a wallet: an event without a mode is a bug, not a default.
      if (event.mode !== 'sandbox' && event.mode !== 'live')
        throw new Error(`payment event ${event.event_id} has no mode`);
      const entries = creditsFor(outcome, event.mode, split, event.event_id, now());
      const result = await ledger.append(entries);
      for (const e of result.inserted) {
        metrics.entries.inc({ kind: e.kind, currency: e.amount.currency, reason: e.reason });
        metrics.amount.inc({ kind: e.kind, currency: e.amount.currency }, e.amount.amount);
      }
      if (result.duplicates > 0) metrics.duplicates.inc({ reason: 'payment_event_replayed' }, result.duplicates);
    },
  });
}
