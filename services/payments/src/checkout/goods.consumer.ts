import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec } from '@ppay/runtime';
import type { GoodsCheckout } from './goods-checkout';

/**
 * payment.succeeded of a checkout session → its order (and its stock kept), for a physical product. The
 * page does this at once; this consumer finishes it after a crash between the payment's write and the
 * order's (both repeatable: one order per charge, one stock hold per session).
 */
export function paidGoodsConsumer(goods: Pick<GoodsCheckout, 'onPaymentSucceeded'>): ConsumerSpec {
  return defineConsumer({
    stream: 'PAYMENTS',
    durable: 'payments_orders',
    subjects: [SUBJECTS.paymentSucceeded],
    async handle(event) {
      if (event.data.session_id && event.data.product?.type === 'physical') {
        await goods.onPaymentSucceeded(event.data.session_id);
      }
    },
  });
}
