import { PlatformError, type Mode, type PaymentOutcome } from '@ppay/kernel';
import { creditsFor } from './ledger';
import type { LedgerRepository, SplitResolver, SplitTerms } from '../ports';
import type { LedgerEntry } from './ledger-entry';

/**
 * Records the wallet credits of a successful payment: the consumer of payment.succeeded and the
 * reconciler that repairs a payment the ledger never saw both come here, and the idempotency keys of
 * the entries make any number of repeats harmless.
 */
export class WalletCredits {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly splits: SplitResolver,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(
    outcome: PaymentOutcome,
    mode: Mode,
    eventId: string,
  ): Promise<{ inserted: LedgerEntry[]; duplicates: number }> {
    let split: SplitTerms | null = null;
    if (outcome.sub_merchant_id) {
      // Activeness is judged when the payment succeeds (spec 4.1 step 4), not when it was created.
      split = await this.splits.resolve(outcome.merchant_id, outcome.sub_merchant_id, mode).catch((err: unknown) => {
        // Only a definite "no such relationship" skips the sub-merchant; anything else retries later.
        if (err instanceof PlatformError && err.code === 'RELATIONSHIP_NOT_FOUND') {
          return { active: false, commission_rate: '0', commission_source: 'none' };
        }
        throw err;
      });
    }
    return this.ledger.append(creditsFor(outcome, mode, split, eventId, this.now()));
  }
}
