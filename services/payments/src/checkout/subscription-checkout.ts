import { outboxEvent, SUBJECTS, type OutboxEntry, type SubscriptionCheckoutCreated } from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { PaymentMethodRecord } from '../payment-methods/payment-method';
import type { SessionRecord } from './session';

/** The payload of payments.subscription_checkout.created (and the start of .completed's). */
function subscriptionCheckout(s: SessionRecord): SubscriptionCheckoutCreated {
  return {
    session_id: s.session_id,
    merchant_id: s.merchant_id,
    product: { id: s.product.id, title: s.product.name, type: s.product.type },
    price: s.fee_details.base,
    customer: s.customer,
    frequency: s.subscription_frequency_key as SubscriptionCheckoutCreated['frequency'],
    trial_days: s.trial_days ?? null,
    metadata: s.metadata,
    created_at: s.created_at.toISOString(),
    expires_at: s.expires_at.toISOString(),
  };
}

/** A subscription session tells subscriptions at once, which records a pending subscription. */
export function subscriptionCheckoutCreated(s: SessionRecord): OutboxEntry {
  return outboxEvent(SUBJECTS.subscriptionCheckoutCreated, subscriptionCheckout(s), {
    merchantId: s.merchant_id,
    mode: s.mode,
  });
}

/** The subscription session paid (or its trial started: no charge) with the card saved as `method`. */
export function subscriptionCheckoutCompleted(
  s: SessionRecord,
  method: Pick<PaymentMethodRecord, 'payment_method_id' | 'card'>,
  charge: ChargeRecord | null,
  at: Date,
): OutboxEntry {
  return outboxEvent(
    SUBJECTS.subscriptionCheckoutCompleted,
    {
      ...subscriptionCheckout(s),
      payment_method_id: method.payment_method_id,
      card: { brand: method.card.brand, last4: method.card.last4 },
      charge_id: charge?.charge_id ?? null,
      transaction_id: charge?.transaction_id ?? null,
      completed_at: at.toISOString(),
    },
    { merchantId: s.merchant_id, mode: s.mode },
  );
}
