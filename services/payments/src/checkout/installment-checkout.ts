import { outboxEvent, SUBJECTS, type OutboxEntry } from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { PaymentMethodRecord } from '../payment-methods/payment-method';
import type { SessionRecord } from './session';

/**
 * payments.installment_checkout.completed: the first part of an installment session is paid with the card
 * saved as `method`; subscriptions creates the plan (under the session's plan id) and charges the others.
 */
export function installmentCheckoutCompleted(
  s: SessionRecord,
  method: Pick<PaymentMethodRecord, 'payment_method_id' | 'card'>,
  charge: ChargeRecord,
  at: Date,
): OutboxEntry {
  const plan = s.installments!;
  return outboxEvent(
    SUBJECTS.installmentCheckoutCompleted,
    {
      session_id: s.session_id,
      plan_id: plan.plan_id,
      merchant_id: s.merchant_id,
      product: { id: s.product.id, title: s.product.name, type: s.product.type },
      customer: s.customer,
      total: plan.total,
      count: plan.count,
      interval: plan.interval,
      metadata: s.metadata,
      payment_method_id: method.payment_method_id,
      card: { brand: method.card.brand, last4: method.card.last4 },
      charge_id: charge.charge_id,
      transaction_id: charge.transaction_id,
      completed_at: at.toISOString(),
    },
    { merchantId: s.merchant_id, mode: s.mode },
  );
}
