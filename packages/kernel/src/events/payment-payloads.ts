import type { Money } from '../money';
import type { InstallmentInterval } from '../installments';
import type { SubscriptionFrequency } from '../subscriptions';

// Payloads of the PAYMENTS stream (subjects in catalogue.ts).

/** Spec 6.5 MoneyAmount: the kernel's Money (integer minor units + ISO 4217), never a float. */
export type MoneyAmount = Money;

export interface MulticurrencyBreakdown {
  customer_paid: MoneyAmount;
  merchant_gross: MoneyAmount;
  merchant_net: MoneyAmount;
  fees: { platform_fee: MoneyAmount; gateway_fee: MoneyAmount; total: MoneyAmount };
  /** Omitted when the customer's and the merchant's currencies are the same. */
  conversion?: {
    from_currency: string;
    to_currency: string;
    /** The spec's number, for display; `rate_decimal` is the exact value. */
    rate: number;
    rate_decimal: string;
    surcharge_percent: number;
  };
}

/** A charge reached a final state (payments.payment.succeeded / .failed), as first published (charges only). */
export interface PaymentOutcomeV1 {
  charge_id: string;
  transaction_id: string;
  merchant_id: number;
  status: 'succeeded' | 'failed';
  payment_type: 'one_time' | 'subscription' | 'installment';
  gateway: string;
  reference: string | null;
  /** What the customer was charged, in the charge currency (spec 4.1 `amount` plus any fee they pay). */
  amount: MoneyAmount;
  /** The merchant's priced amount (spec 4.1 `total_amount`), source of truth for the wallet credit. */
  total: MoneyAmount;
  transaction_fee: MoneyAmount;
  customer_pays_fees: boolean;
  breakdown: MulticurrencyBreakdown;
  customer: { email: string; first_name: string; last_name: string; country: string };
  sub_merchant_id: number | null;
  failure_reason: string | null;
  completed_at: string;
}

/** Since hosted checkout sessions: the session, the spec 6.4 product object and the partner's metadata. */
export interface PaymentOutcomeV2 extends PaymentOutcomeV1 {
  /** Set when the payment was made on a hosted checkout session (spec 4.2). */
  session_id: string | null;
  /** Spec 6.4 product object; null for charges, which have no catalogue product. */
  product: { id: number | null; title: string; type: string } | null;
  /** Sessions with subscription_frequency_key. */
  subscription_frequency_key: string | null;
  metadata: Record<string, string | number | boolean>;
}

/**
 * Since installment plans (issue 26): which part of which plan the payment is (spec 6.4 "installment
 * fields"); null for every other payment.
 */
export interface PaymentOutcomeV3 extends PaymentOutcomeV2 {
  installment: PaymentInstallment | null;
}

export interface PaymentInstallment {
  plan_id: string;
  /** 1 = the part paid on the hosted checkout page. */
  number: number;
  count: number;
  /** What is left to pay on the plan after this payment: this part included when it failed. */
  amount_remaining: MoneyAmount;
}

/**
 * Since physical products (spec 6.4 "product object"): the variation bought and how many units; null
 * for payments that are not of a physical product.
 */
export interface PaymentOutcomeV4 extends PaymentOutcomeV3 {
  variation: { variation_id: string; name: string } | null;
  quantity: number | null;
}

export type PaymentOutcome = PaymentOutcomeV4;

/**
 * A hosted checkout session with `subscription_frequency_key` was created (payments → subscriptions,
 * which records a `pending` subscription). Only subscription sessions publish it.
 */
export interface SubscriptionCheckoutCreated {
  session_id: string;
  merchant_id: number;
  /** Spec 6.4 product object; `id` is null for a session sold by product_name. */
  product: { id: number | null; title: string; type: string };
  /** The recurring price the merchant set (before any fee the customer pays), charged every period. */
  price: Money;
  customer: { email: string; first_name: string; last_name: string; country: string };
  frequency: SubscriptionFrequency;
  /** Free trial (beyond the spec): no first charge, billing starts at trial end. */
  trial_days: number | null;
  metadata: Record<string, string | number | boolean>;
  created_at: string;
  expires_at: string;
}

/**
 * The customer completed a subscription checkout: the first period is paid (`charge_id` set), or the
 * card was saved for a trial (`charge_id` null). Carries the whole checkout so the subscription can be
 * created even if this event is handled before `subscription_checkout.created`.
 */
export interface SubscriptionCheckoutCompleted extends SubscriptionCheckoutCreated {
  /** The saved payment method (owned by payments) that renewals charge off-session. */
  payment_method_id: string;
  card: { brand: string; last4: string };
  charge_id: string | null;
  transaction_id: string | null;
  completed_at: string;
}

/**
 * One wallet ledger entry (spec 2.9, 6.4 wallet.credited / wallet.debited), published once per entry
 * from the entry's own document (its outbox), so `entry_id` (the entry's idempotency key) is unique.
 */
export interface WalletEntryEvent {
  entry_id: string;
  merchant_id: number;
  kind: 'credit' | 'debit';
  /** payment | marketplace_operator | marketplace_split today; payouts and refunds will add theirs. */
  reason: string;
  amount: MoneyAmount;
  /** The charge behind the entry, when there is one. */
  charge_id: string | null;
  /** Spec 2.11 split record for marketplace split credits; null otherwise. */
  split: Record<string, unknown> | null;
  created_at: string;
}

/**
 * A refund of a charge succeeded (payments.payment.refunded, the webhook payment.refunded): one event
 * per refund, published from the charge's outbox in the write that recorded it. Failed refunds
 * publish nothing (nothing moved).
 */
export interface PaymentRefunded {
  charge_id: string;
  transaction_id: string;
  merchant_id: number;
  sub_merchant_id: number | null;
  reference: string | null;
  gateway: string;
  /** What the customer paid: the most that can be refunded in total (charge currency). */
  amount_captured: MoneyAmount;
  /** Sum of the charge's succeeded refunds, this one included. */
  amount_refunded: MoneyAmount;
  /** The whole captured amount has been refunded. */
  refunded: boolean;
  refund: {
    refund_id: string;
    amount: MoneyAmount;
    status: 'succeeded';
    reason: string | null;
    /**
     * amount_refunded before this refund: the refund covers [refunded_before, refunded_before + amount)
     * of the capture, which the ledger's proportional reversal needs (internal; not rendered).
     */
    refunded_before: number;
    created_at: string;
  };
  metadata: Record<string, string | number | boolean>;
  refunded_at: string;
}

/**
 * A staged payout request (spec 2.10) after a change: requested (amount reserved), approved (withdrawal
 * payout_pending), rejected (reservation released), paid (final wallet debit), failed (released).
 */
export interface SettlementEvent {
  payout_request_id: number;
  withdrawal_id: number | null;
  merchant_id: number;
  marketplace_id: number;
  reference: string;
  amount: MoneyAmount;
  request_status: 'pending' | 'approved' | 'rejected';
  withdrawal_status: 'payout_pending' | 'paid' | 'failed' | null;
  payment_gateway: string;
  payout_method: string;
  approved_at: string | null;
  rejected_at: string | null;
  rejection_reason: string | null;
  paid_at: string | null;
  failed_at: string | null;
  failure_reason: string | null;
  created_at: string;
}

/**
 * The customer paid the first part of an installment checkout (payments → subscriptions, which creates
 * the plan under `plan_id`, chosen when the session was created so the first payment.succeeded names it).
 */
export interface InstallmentCheckoutCompleted {
  session_id: string;
  plan_id: string;
  merchant_id: number;
  /** Spec 6.4 product object; `id` is null for a session sold by product_name. */
  product: { id: number | null; title: string; type: string };
  customer: { email: string; first_name: string; last_name: string; country: string };
  /** What the parts add up to (customer currency, before any fee the customer pays per part). */
  total: Money;
  count: number;
  interval: InstallmentInterval;
  metadata: Record<string, string | number | boolean>;
  /** The saved payment method (owned by payments) that the later parts are charged to. */
  payment_method_id: string;
  card: { brand: string; last4: string };
  /** The first part's charge. */
  charge_id: string;
  transaction_id: string;
  completed_at: string;
}

/** Why a customer's bank disputes a payment (Stripe's and Paystack's categories). */
export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'product_unacceptable',
  'duplicate',
  'subscription_canceled',
  'credit_not_processed',
  'unrecognized',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** What the merchant answers a dispute with (every field optional, each bounded; docs/decisions.md, Disputes). */
export const DISPUTE_EVIDENCE_FIELDS = [
  'customer_name',
  'customer_email',
  'product_description',
  'shipping_carrier',
  'shipping_tracking_number',
  'shipping_date',
  'service_date',
  'refund_policy',
  'cancellation_policy',
  'receipt_url',
  'uncategorized_text',
] as const;
export type DisputeEvidenceField = (typeof DISPUTE_EVIDENCE_FIELDS)[number];
export type DisputeEvidence = Record<DisputeEvidenceField, string | null>;

/**
 * One wallet movement of a dispute: a withdrawal (the disputed amount's share of one beneficiary's
 * credit, or the dispute fee), or its reinstatement once the dispute is won. Amounts are in the
 * currency of the wallet they move.
 */
export interface DisputeFunds {
  merchant_id: number;
  /** merchant (a plain charge's owner), operator or sub_merchant (a marketplace split charge). */
  role: 'merchant' | 'operator' | 'sub_merchant';
  kind: 'dispute_withdrawal' | 'dispute_fee';
  amount: MoneyAmount;
}

/** Which evidence a dispute holds, without the texts (Stripe's `evidence_details`). */
export interface DisputeEvidenceDetails {
  has_evidence: boolean;
  /** The evidence fields saved (as a draft or submitted), in DISPUTE_EVIDENCE_FIELDS order. */
  fields_provided: DisputeEvidenceField[];
  /** 1 once the evidence was submitted (by the merchant, or at the due date), else 0: it is submitted once. */
  submission_count: number;
}

/** A dispute as partners see it (docs/decisions.md, Disputes): GET /disputes/{id} and the list items. */
export interface DisputePayload {
  dispute_id: string;
  charge_id: string;
  merchant_id: number;
  sub_merchant_id: number | null;
  /** In the charge currency: at most what was captured minus what was refunded. */
  amount: MoneyAmount;
  fee: MoneyAmount;
  reason: DisputeReason;
  status: DisputeStatus;
  evidence: DisputeEvidence;
  evidence_details: DisputeEvidenceDetails;
  evidence_due_by: string;
  evidence_submitted_at: string | null;
  is_live: boolean;
  /** What was taken from which wallet when the dispute opened. */
  funds_withdrawn: DisputeFunds[];
  /** The same movements given back, once the dispute is won (empty otherwise). */
  funds_reinstated: DisputeFunds[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

/**
 * The dispute in every dispute.* event: as partners see it, without the evidence texts (up to 32 KiB the
 * merchant itself sent; `evidence_details` says which are saved, GET /disputes/{id} has them).
 */
export type DisputeEventPayload = Omit<DisputePayload, 'evidence'>;

/** payments.dispute.* (created, updated, closed, funds_withdrawn, funds_reinstated). */
export interface DisputeEvent {
  charge_id: string;
  /** The charge's owner (the operator for a marketplace charge): who receives the webhooks. */
  merchant_id: number;
  dispute: DisputeEventPayload;
}

/** Where a physical product ships (collected on the hosted checkout page). */
export interface ShippingAddress {
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
  phone: string | null;
}

export const ORDER_STATUSES = ['paid', 'fulfilled', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** One shipment of an order: who carries it and how to track it. */
export interface OrderFulfilment {
  carrier: string;
  tracking_number: string;
  tracking_url: string | null;
  fulfilled_at: string;
}

/** An order as partners see it (docs/decisions.md, Products and orders), in every order.* event. */
/** How a marketplace order's payment splits (the sub-merchant's credit is the product's total less the commission). */
export interface OrderSplit {
  operator_id: number;
  sub_merchant_id: number;
  commission_rate: string;
  commission: Money;
  sub_merchant_amount: Money;
}

export interface OrderPayload {
  order_id: string;
  status: OrderStatus;
  product: { id: number | null; title: string; type: string };
  variation: { variation_id: string; name: string } | null;
  quantity: number;
  /** Spec 6.5: what the customer paid and what the merchant is owed, as for the payment. */
  amount: MulticurrencyBreakdown;
  shipping_address: ShippingAddress;
  customer: { email: string; first_name: string; last_name: string };
  charge_id: string;
  session_id: string;
  /**
   * A marketplace sale (a session with `sub_merchant_id`): the order is the sub-merchant's (it ships), the
   * charge the operator's; how the payment splits between them. Null for a merchant's own sale.
   */
  split: OrderSplit | null;
  fulfilments: OrderFulfilment[];
  /** Set once cancelled: why, and the refund of the whole payment. */
  cancellation: { reason: string; refund_id: string | null; cancelled_at: string } | null;
  delivered_at: string | null;
  is_live: boolean;
  created_at: string;
  updated_at: string;
}

/** payments.order.* (created, fulfilled, delivered, cancelled). */
export interface OrderEvent {
  merchant_id: number;
  order: OrderPayload;
}
