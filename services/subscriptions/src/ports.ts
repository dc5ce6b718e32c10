import type { Mode, Money, SubscriptionFrequency } from '@ppay/kernel';
import type { MetadataValue } from './subscriptions/subscription';

/**
 * Ports that several subdomains use: payments charges the sandbox helper's first period, every renewal and
 * every later part of an installment plan.
 */

export interface OffSessionCharge {
  payment_method_id: string;
  price: Money;
  idempotency_key: string;
  product: { id: number | null; title: string; type: string };
  /** Null for an installment part (it is not a subscription). */
  frequency: SubscriptionFrequency | null;
  /** Which part of which installment plan this charge pays (absent for subscriptions). */
  installment?: InstallmentRef;
  metadata: Record<string, MetadataValue>;
  customer: { email: string; first_name: string; last_name: string; country: string };
  /** The sandbox helper's first payment: the customer is present (the card behaves as on the hosted page). */
  customer_present: boolean;
}

export interface InstallmentRef {
  plan_id: string;
  number: number;
  count: number;
  /** What the plan still owes once this part is paid (payments adds the part back when it is declined). */
  remaining_if_paid: Money;
}

export interface ChargeOutcome {
  charge_id: string;
  status: 'succeeded' | 'failed';
  decline_code: string | null;
}

/** An off-session charge as payments holds it: `pending` while its processor has not answered. */
export interface ChargeFound {
  charge_id: string;
  status: 'succeeded' | 'failed' | 'pending';
  decline_code: string | null;
  /** What was charged before any fee the customer pays: the `price` it was asked with. */
  amount: Money;
}

/** What subscriptions needs from payments (which owns payment methods and charges). */
export interface PaymentsPort {
  /** Idempotent by `idempotency_key`: a repeat answers the same charge. Throws when payments cannot answer. */
  /** `deadline`: the caller's (the sandbox clock's request); the client's own deadline otherwise. */
  chargeSaved(merchantId: number, mode: Mode, charge: OffSessionCharge, deadline?: Date): Promise<ChargeOutcome>;
  /**
   * The charge made with `idempotencyKey` (an off-session charge's key is also its reference), or null when
   * none was: a read that never makes one. Throws when payments cannot answer (the outcome is unknown).
   */
  findCharge(merchantId: number, mode: Mode, idempotencyKey: string, deadline?: Date): Promise<ChargeFound | null>;
  /** Sandbox: a test card saved without the hosted page. */
  saveTestCard(
    merchantId: number,
    mode: Mode,
    cardNumber: string,
    email: string,
  ): Promise<{ payment_method_id: string; brand: string; last4: string }>;
}
