import { SUBJECTS, type EventEnvelope, type Mode } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec, type MerchantTombstones } from '@ppay/runtime';
import type { LedgerEntry } from './ledger-entry';
import { countLedgerWrites, type LedgerMetrics } from './ledger.metrics';

/**
 * The lease under which the consumers that write wallets run: one replica at a time. Every credit and
 * refund debit lands on a few hot wallets (an operator's takes every commission); on two replicas their
 * compare-and-sets on one wallet made the appliers retry each other (docs/architecture.md, "Wallets").
 */
export const WALLET_WRITERS_LEASE = 'payments-wallet-writers';

/**
 * The wallet mode of a money event, or null when its merchant was deleted meanwhile (its wallets went
 * with its data, so the event credits or debits nobody). Sandbox and live money never share a wallet:
 * an event without a mode is a bug, not a default, and throws.
 */
export async function walletModeOf(
  event: { event_id: string; mode?: string; data: { merchant_id: number } },
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): Promise<Mode | null> {
  if (event.mode !== 'sandbox' && event.mode !== 'live') throw new Error(`money event ${event.event_id} has no mode`);
  return (await tombstones.isDeleted(event.data.merchant_id, event.mode)) ? null : event.mode;
}

type MoneyEvent =
  | typeof SUBJECTS.paymentSucceeded
  | typeof SUBJECTS.paymentRefunded
  | typeof SUBJECTS.disputeFundsWithdrawn
  | typeof SUBJECTS.disputeFundsReinstated;

/** A consumer that writes ledger entries: its durable name, its subject and how it counts redeliveries. */
export interface WalletWriter<S extends MoneyEvent> {
  durable: string;
  subject: S;
  /** The label under which entries already written (a redelivered event) are counted. */
  duplicateReason: string;
}

/** payment.succeeded → wallet credits (WalletCredits; a split marketplace cannot resolve now is retried later). */
export const PAYMENT_CREDITS: WalletWriter<typeof SUBJECTS.paymentSucceeded> = {
  durable: 'payments_ledger',
  subject: SUBJECTS.paymentSucceeded,
  duplicateReason: 'payment_event_replayed',
};

/**
 * The durable consumer of a WalletWriter: `ledger` turns each event into ledger entries, under the
 * wallet writers' lease. Safe to see the same event any number of times: every entry carries an
 * idempotency key (charge or refund, and beneficiary). A failure throws, so JetStream redelivers
 * later, without limit.
 */
export function walletWriterConsumer<S extends MoneyEvent>(
  writer: WalletWriter<S>,
  ledger: {
    record(
      data: EventEnvelope<S>['data'],
      mode: Mode,
      eventId: string,
    ): Promise<{ inserted: LedgerEntry[]; duplicates: number }>;
  },
  metrics: LedgerMetrics,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): ConsumerSpec {
  return defineConsumer<S>({
    stream: 'PAYMENTS',
    durable: writer.durable,
    exclusive: WALLET_WRITERS_LEASE,
    subjects: [writer.subject],
    async handle(event) {
      const mode = await walletModeOf(event, tombstones);
      if (mode)
        countLedgerWrites(metrics, await ledger.record(event.data, mode, event.event_id), writer.duplicateReason);
    },
  });
}
