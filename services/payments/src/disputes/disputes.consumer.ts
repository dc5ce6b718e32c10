import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec } from '@ppay/runtime';
import type { DisputeCloser } from './dispute-closing';
import type { SandboxCardDisputes } from './sandbox-card-disputes';

/**
 * dispute.closed → the charge's hold follows its dispute (won: nothing held; lost: held for good). The
 * closer does this at once; this consumer finishes it after a crash between the two writes.
 */
export function disputeChargeConsumer(closer: Pick<DisputeCloser, 'syncCharge'>): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'payments_dispute_charges',
    subjects: [SUBJECTS.disputeClosed],
    async handle(event) {
      if (event.mode !== 'sandbox' && event.mode !== 'live')
        throw new Error(`dispute event ${event.event_id} has no mode`);
      await closer.syncCharge({ ...event.data.dispute, mode: event.mode });
    },
  });
}

/** payment.succeeded of a sandbox checkout paid with a dispute test card → its dispute (SandboxCardDisputes). */
export function sandboxCardDisputeConsumer(cards: SandboxCardDisputes): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'payments_sandbox_card_disputes',
    subjects: [SUBJECTS.paymentSucceeded],
    async handle(event) {
      if (event.mode === 'sandbox') await cards.onPaymentSucceeded(event.data, event.mode);
    },
  });
}
