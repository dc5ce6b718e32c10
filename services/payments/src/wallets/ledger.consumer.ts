import { SUBJECTS, type Mode } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec, type MerchantTombstones } from '@ppay/runtime';
import type { WalletCredits } from './wallet-credits';
import { countLedgerWrites, type ledgerMetrics } from './ledger.metrics';

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

/**
 * payment.succeeded → wallet credits. Safe to see the same event any number of times: every entry
 * carries an idempotency key per charge and beneficiary. A failure (e.g. marketplace unreachable
 * while resolving a split) throws, so JetStream redelivers later, without limit.
 */
export function ledgerConsumer(
  credits: WalletCredits,
  metrics: ReturnType<typeof ledgerMetrics>,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'payments_ledger',
    exclusive: WALLET_WRITERS_LEASE,
    subjects: [SUBJECTS.paymentSucceeded],
    async handle(event) {
      const mode = await walletModeOf(event, tombstones);
      if (mode)
        countLedgerWrites(metrics, await credits.record(event.data, mode, event.event_id), 'payment_event_replayed');
    },
  });
}
