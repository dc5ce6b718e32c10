import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec, type MerchantTombstones } from '@ppay/runtime';
import type { CheckoutService } from './checkouts';

/**
 * payments' subscription checkouts → subscriptions: `created` records a pending subscription, `completed`
 * activates it (or starts its trial) with the saved payment method. Both are idempotent by checkout
 * session (a unique index), and `completed` creates the subscription itself if it is handled first.
 */
export function checkoutConsumer(
  checkouts: CheckoutService,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'subscriptions_checkouts',
    subjects: [SUBJECTS.subscriptionCheckoutCreated, SUBJECTS.subscriptionCheckoutCompleted],
    async handle(event) {
      // Sandbox and live subscriptions never mix: an event without a mode is a bug, not a default.
      if (event.mode !== 'sandbox' && event.mode !== 'live')
        throw new Error(`checkout event ${event.event_id} has no mode`);
      // A checkout of a merchant deleted meanwhile must not create a subscription for it again.
      if (await tombstones.isDeleted(event.data.merchant_id, event.mode)) return;
      if (event.subject === SUBJECTS.subscriptionCheckoutCompleted) {
        await checkouts.checkoutCompleted(event.mode, event.data);
      } else {
        await checkouts.checkoutCreated(event.mode, event.data);
      }
    },
  });
}
