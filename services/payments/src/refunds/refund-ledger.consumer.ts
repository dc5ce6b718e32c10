import { SUBJECTS } from '@ppay/kernel';
import type { WalletWriter } from '../wallets/ledger.consumer';

/**
 * payment.refunded → ledger debits (RefundLedger: the refund's reversal of the charge's credits),
 * consumed by `walletWriterConsumer` like the payments' credits.
 */
export const REFUND_DEBITS: WalletWriter<typeof SUBJECTS.paymentRefunded> = {
  durable: 'payments_refund_ledger',
  subject: SUBJECTS.paymentRefunded,
  duplicateReason: 'refund_event_replayed',
};
