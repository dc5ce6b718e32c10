import { SUBJECTS } from '@ppay/kernel';
import type { WalletWriter } from '../wallets/ledger.consumer';

/**
 * dispute.funds_withdrawn → debits and dispute.funds_reinstated → credits (dispute-ledger.ts), consumed by
 * `walletWriterConsumer` under the wallet writers' lease, like the payments' credits and refunds' debits.
 */
export const DISPUTE_WITHDRAWALS: WalletWriter<typeof SUBJECTS.disputeFundsWithdrawn> = {
  durable: 'payments_dispute_withdrawals',
  subject: SUBJECTS.disputeFundsWithdrawn,
  duplicateReason: 'dispute_event_replayed',
};

export const DISPUTE_REINSTATEMENTS: WalletWriter<typeof SUBJECTS.disputeFundsReinstated> = {
  durable: 'payments_dispute_reinstatements',
  subject: SUBJECTS.disputeFundsReinstated,
  duplicateReason: 'dispute_event_replayed',
};
