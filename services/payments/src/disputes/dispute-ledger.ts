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
 *
 * The two events have their own consumers, so a dispute won quickly can have its reinstatement handled
 * first. A credit before its debit would show partners money the dispute holds (and let them pay it
 * out), so a reinstatement appends the withdrawal's debits first: the same entries under the same keys,
 * whichever event writes them, so each wallet sees debit then credit in either order.
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
      record: async (e, mode, eventId) => {
        const at = now();
        const first = await ledger.append(
          disputeEntries('withdrawn', e.dispute, e.dispute.funds_withdrawn, mode, eventId, at),
        );
        const moved = await ledger.append(
          disputeEntries('reinstated', e.dispute, e.dispute.funds_reinstated, mode, eventId, at),
        );
        // Debits already written are the usual case here, not a redelivery: only this event's own count.
        return { inserted: [...first.inserted, ...moved.inserted], duplicates: moved.duplicates };
      },
    },
  };
}
