import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec, type MerchantTombstones } from '@ppay/runtime';
import type { RefundLedger } from './refund-ledger';
import { WALLET_WRITERS_LEASE, walletModeOf } from '../wallets/ledger.consumer';
import { countLedgerWrites, type ledgerMetrics } from '../wallets/ledger.metrics';

/**
 * payment.refunded → ledger debits (the refund's reversal of the charge's credits). Safe to see the
 * same event any number of times: every debit's idempotency key is the refund id and beneficiary. A
 * failure throws, so JetStream redelivers later, without limit.
 */
export function refundLedgerConsumer(
  refunds: RefundLedger,
  metrics: ReturnType<typeof ledgerMetrics>,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'payments_refund_ledger',
    exclusive: WALLET_WRITERS_LEASE,
    subjects: [SUBJECTS.paymentRefunded],
    async handle(event) {
      const mode = await walletModeOf(event, tombstones);
      if (mode)
        countLedgerWrites(metrics, await refunds.record(event.data, mode, event.event_id), 'refund_event_replayed');
    },
  });
}
