import type { DisputeEvent, Mode } from '@ppay/kernel';
import type { LedgerRepository } from '../ports';
import type { LedgerEntry } from '../wallets/ledger-entry';
import { disputeEntries } from './dispute-funds';

type Recorder = {
  record(event: DisputeEvent, mode: Mode, eventId: string): Promise<{ inserted: LedgerEntry[]; duplicates: number }>;
};

/**
 * dispute.funds_withdrawn → debits, dispute.funds_reinstated → credits: exactly the movements the dispute
 * recorded when it opened (and, mirrored, when it was won). The entries' keys (dispute, wallet,
 * movement) make any number of redeliveries harmless; a crash between the dispute's write and these
 * appends only delays them (the event waits in the dispute's outbox, JetStream redelivers).
 */
export function disputeLedger(
  ledger: Pick<LedgerRepository, 'append'>,
  now: () => Date = () => new Date(),
): { withdrawals: Recorder; reinstatements: Recorder } {
  return {
    withdrawals: {
      record: (e, mode, eventId) =>
        ledger.append(disputeEntries('withdrawn', e.dispute, e.dispute.funds_withdrawn, mode, eventId, now())),
    },
    reinstatements: {
      record: (e, mode, eventId) =>
        ledger.append(disputeEntries('reinstated', e.dispute, e.dispute.funds_reinstated, mode, eventId, now())),
    },
  };
}
