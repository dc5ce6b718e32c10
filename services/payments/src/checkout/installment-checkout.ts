import {
  outboxEvent,
  prefixedId,
  splitMoney,
  SUBJECTS,
  type InstallmentTerms,
  type Money,
  type OutboxEntry,
} from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { FeeBreakdown } from '../charges/fees';
import type { PaymentMethodRecord } from '../payment-methods/payment-method';
import type { SessionInstallments, SessionRecord } from './session';

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

/** The plan of an installment session: a fresh plan id, each part (remainder on the first) with its own fee. */
export function installmentParts(
  total: Money,
  terms: InstallmentTerms,
  priced: (base: Money) => FeeBreakdown,
): SessionInstallments {
  return {
    plan_id: prefixedId('ip'),
    ...terms,
    total,
    parts: splitMoney(total, terms.count).map((base, i) => {
      const { fee, total: charged } = priced(base);
      return { number: i + 1, base, fee, total: charged };
    }),
  };
}
