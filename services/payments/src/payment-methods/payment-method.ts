import { prefixedId, type Mode } from '@ppay/kernel';
import type { SavedCard } from '../processors/cards';

/** A payment method saved for renewals (subscriptions), owned by payments. */
export interface PaymentMethodRecord {
  payment_method_id: string;
  merchant_id: number;
  mode: Mode;
  customer_email: string;
  card: SavedCard;
  /** The checkout session it was saved on; null for the sandbox helper. Unique: one method per session. */
  origin_session_id: string | null;
  created_at: Date;
}

/** A new payment method with a fresh id: the one place a payment method is drafted. */
export function newPaymentMethod(
  draft: Pick<PaymentMethodRecord, 'merchant_id' | 'mode' | 'customer_email' | 'card' | 'origin_session_id'>,
  now: Date,
): PaymentMethodRecord {
  return {
    payment_method_id: prefixedId('pm'),
    merchant_id: draft.merchant_id,
    mode: draft.mode,
    customer_email: draft.customer_email,
    card: draft.card,
    origin_session_id: draft.origin_session_id,
    created_at: now,
  };
}

/** The sandbox helper's answer: the method without its off-session profile (a token, never the number). */
export function paymentMethodResource(m: PaymentMethodRecord) {
  return {
    payment_method_id: m.payment_method_id,
    brand: m.card.brand,
    last4: m.card.last4,
    customer_email: m.customer_email,
    created_at: m.created_at,
  };
}
