import { defineConsumer, SUBJECTS, type ConsumerSpec, type MerchantTombstones } from '@ppay/kernel';
import type { RefundLedger } from '../domain/refund-ledger';
import { WALLET_WRITERS_LEASE } from './ledger-consumer';
import { countLedgerWrites, type ledgerMetrics } from './metrics';

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
      // Sandbox and live money never share a wallet: an event without a mode is a bug, not a default.
      if (event.mode !== 'sandbox' && event.mode !== 'live')
        throw new Error(`refund event ${event.event_id} has no mode`);
      // A refund of a merchant deleted meanwhile debits nobody: its wallet is gone with its data.
      if (await tombstones.isDeleted(event.data.merchant_id, event.mode)) return;
      countLedgerWrites(metrics, await refunds.record(event.data, event.mode, event.event_id), 'refund_event_replayed');
    },
  });
}
