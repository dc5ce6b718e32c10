import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec, type MerchantTombstones } from '@ppay/runtime';
import type { InstallmentCheckouts } from './plan-checkouts';

/**
 * payments' paid installment checkouts → plans (active, part 1 paid). Idempotent by plan id, and never
 * gives up (a failure redelivers the message).
 */
export function installmentCheckoutConsumer(
  checkouts: InstallmentCheckouts,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'subscriptions_installment_checkouts',
    subjects: [SUBJECTS.installmentCheckoutCompleted],
    async handle(event) {
      // Sandbox and live plans never mix: an event without a mode is a bug, not a default.
      if (event.mode !== 'sandbox' && event.mode !== 'live')
        throw new Error(`installment checkout event ${event.event_id} has no mode`);
      // A checkout of a merchant deleted meanwhile must not create a plan for it again.
      if (await tombstones.isDeleted(event.data.merchant_id, event.mode)) return;
      await checkouts.checkoutCompleted(event.mode, event.data);
    },
  });
}
