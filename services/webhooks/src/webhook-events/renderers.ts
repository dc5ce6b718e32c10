import type { DisputeEvent, OrderEvent, PaymentOutcome, PaymentRefunded, WalletEntryEvent } from '@ppay/kernel';
import { LATEST_API_VERSION } from './api-versions';
import type { WebhookEventRecord } from './webhook-event';

/**
 * Spec 6.4–6.6 and 9: an event is stored once (canonical) and rendered per key at send time. A
 * version date selects the newest payload structure released on or before it: 2026-03-27 and
 * later get `current`, any earlier date `legacy` (6.6). Event types introduced with 2026-03-27
 * (wallet.*) have no legacy renderer and are not delivered to keys on earlier versions.
 */
export interface Renderer {
  current(data: Record<string, unknown>, event: WebhookEventRecord): Record<string, unknown>;
  legacy?: {
    /** 6.6 names some events differently (payment.refunded was refund.completed). */
    event_type?: string;
    data(data: Record<string, unknown>, event: WebhookEventRecord): Record<string, unknown>;
  };
}

function paymentCurrent(raw: Record<string, unknown>) {
  const p = raw as unknown as PaymentOutcome;
  return {
    charge_id: p.charge_id,
    transaction_id: p.transaction_id,
    status: p.status,
    // 6.4: promoted from transaction_details.
    payment_type: p.payment_type,
    gateway: p.gateway,
    reference: p.reference,
    // 6.4/9.6: flat amount + currency become a MulticurrencyBreakdown.
    amount: p.breakdown,
    product: p.product,
    // Physical products: the variation bought and how many (null otherwise).
    variation: p.variation ?? null,
    quantity: p.quantity ?? null,
    customer: { email: p.customer.email, first_name: p.customer.first_name, last_name: p.customer.last_name },
    session_id: p.session_id,
    subscription_frequency_key: p.subscription_frequency_key,
    sub_merchant_id: p.sub_merchant_id,
    failure_reason: p.failure_reason,
    metadata: p.metadata,
    completed_at: p.completed_at,
    // Spec 6.4 "installment fields": which part of which plan (issue 26); null for other payments.
    installment: p.installment ?? null,
  };
}

function paymentLegacy(raw: Record<string, unknown>) {
  const p = raw as unknown as PaymentOutcome;
  return {
    transaction_id: p.transaction_id,
    // What the merchant is owed, in its currency; the customer's side moved into `customer` (6.6).
    amount: p.breakdown.merchant_gross.amount,
    currency: p.breakdown.merchant_gross.currency,
    status: p.status === 'succeeded' ? 'success' : 'failed',
    customer: {
      email: p.customer.email,
      first_name: p.customer.first_name,
      last_name: p.customer.last_name,
      paid_amount: p.breakdown.customer_paid.amount,
      paid_currency: p.breakdown.customer_paid.currency,
    },
    transaction_details: {
      payment_type: p.payment_type,
      product_type: p.product?.type ?? null,
      product_title: p.product?.title ?? null,
      payment_gateway: p.gateway,
      created_at: p.completed_at,
      // Installment payments only (issue 26): the same values flat, as 6.6 keeps its details.
      ...(p.installment && {
        installment_plan_id: p.installment.plan_id,
        installment_number: p.installment.number,
        installment_count: p.installment.count,
      }),
    },
  };
}

/** payment.refunded (docs/decisions.md, Refunds): the charge's refund totals and the refund sub-object. */
function refundedCurrent(raw: Record<string, unknown>) {
  const r = raw as unknown as PaymentRefunded;
  return {
    charge_id: r.charge_id,
    transaction_id: r.transaction_id,
    reference: r.reference,
    gateway: r.gateway,
    sub_merchant_id: r.sub_merchant_id,
    amount_captured: r.amount_captured,
    amount_refunded: r.amount_refunded,
    refunded: r.refunded,
    refund: {
      refund_id: r.refund.refund_id,
      amount: r.refund.amount,
      status: r.refund.status,
      reason: r.refund.reason,
      created_at: r.refund.created_at,
    },
    // An empty object does not survive storage in the outbox (minimised away): say {} explicitly.
    metadata: r.metadata ?? {},
    refunded_at: r.refunded_at,
  };
}

/** refund.completed (6.6): flat amount and currency of the refund, status "success". */
function refundedLegacy(raw: Record<string, unknown>) {
  const r = raw as unknown as PaymentRefunded;
  return {
    transaction_id: r.transaction_id,
    refund_id: r.refund.refund_id,
    amount: r.refund.amount.amount,
    currency: r.refund.amount.currency,
    status: 'success',
    reason: r.refund.reason,
    transaction_details: { payment_gateway: r.gateway, created_at: r.refunded_at },
  };
}

function walletCurrent(raw: Record<string, unknown>) {
  const w = raw as unknown as WalletEntryEvent;
  return {
    entry_id: w.entry_id,
    kind: w.kind,
    reason: w.reason,
    amount: w.amount,
    charge_id: w.charge_id,
    split: w.split,
    created_at: w.created_at,
  };
}

/** dispute.* (docs/decisions.md, Disputes): the charge id and the dispute object, as GET /disputes/{id} shows it. */
function disputeCurrent(raw: Record<string, unknown>) {
  const d = raw as unknown as DisputeEvent;
  return { charge_id: d.charge_id, dispute: d.dispute };
}

/** order.* (docs/decisions.md, Products and orders): the order, its amount a MulticurrencyBreakdown. */
const orderCurrent = (raw: Record<string, unknown>) => ({ ...(raw as unknown as OrderEvent).order });

export const RENDERERS: Record<string, Renderer> = {
  ping: { current: (d) => d, legacy: { data: (d) => d } },
  'payment.succeeded': { current: paymentCurrent, legacy: { data: paymentLegacy } },
  'payment.failed': { current: paymentCurrent, legacy: { data: paymentLegacy } },
  // 6.6: the earlier name was refund.completed.
  'payment.refunded': { current: refundedCurrent, legacy: { event_type: 'refund.completed', data: refundedLegacy } },
  'wallet.credited': { current: walletCurrent },
  'wallet.debited': { current: walletCurrent },
  // Subscription and KYC payloads are published in their resource shape (spec 6.4 for
  // subscription.created); like wallet.*, they arrived with 2026-03-27 and have no 6.6 shape.
  'subscription.created': { current: (d) => d },
  'subscription.renewed': { current: (d) => d },
  'subscription.payment_failed': { current: (d) => d },
  'subscription.paused': { current: (d) => d },
  'subscription.resumed': { current: (d) => d },
  'subscription.cancelled': { current: (d) => d },
  'kyc.submission.updated': { current: (d) => d },
  'kyc.payout_account.updated': { current: (d) => d },
  // Staged payouts in their spec 2.10 shape (amount as a MoneyAmount), since 2026-03-27 only.
  'settlement.requested': { current: (d) => d },
  'settlement.approved': { current: (d) => d },
  'settlement.rejected': { current: (d) => d },
  'settlement.paid': { current: (d) => d },
  'settlement.failed': { current: (d) => d },
  // Installment plans (issue 26) in their resource shape with the schedule, since 2026-03-27 only.
  'installment_plan.created': { current: (d) => d },
  'installment_plan.completed': { current: (d) => d },
  'installment_plan.defaulted': { current: (d) => d },
  'installment_plan.cancelled': { current: (d) => d },
  // Disputes arrived after 2026-03-27's shapes: like wallet.*, no 6.6 shape and no delivery to earlier keys.
  'dispute.created': { current: disputeCurrent },
  'dispute.updated': { current: disputeCurrent },
  'dispute.closed': { current: disputeCurrent },
  'dispute.funds_withdrawn': { current: disputeCurrent },
  'dispute.funds_reinstated': { current: disputeCurrent },
  // Orders arrived with 2026-03-27 (spec 9.6): no 6.6 shape.
  'order.created': { current: orderCurrent },
  'order.fulfilled': { current: orderCurrent },
  'order.delivered': { current: orderCurrent },
  'order.cancelled': { current: orderCurrent },
};

/** Dates compare as strings (YYYY-MM-DD). */
export function usesCurrentShape(apiVersion: string): boolean {
  return apiVersion >= LATEST_API_VERSION;
}

/** Whether a key on `apiVersion` receives events of this type at all. */
export function deliverableTo(eventType: string, apiVersion: string): boolean {
  const r = RENDERERS[eventType];
  return r !== undefined && (usesCurrentShape(apiVersion) || r.legacy !== undefined);
}

export interface RenderedEvent {
  event_type: string;
  /** The exact bytes that are signed and sent. */
  body: string;
}

/**
 * The envelope (6.1) for one key. `sequence` is additive in both shapes. A key moved to an old
 * version after the delivery was created gets the current shape for types without a legacy one.
 */
export function renderEvent(event: WebhookEventRecord, apiVersion: string): RenderedEvent {
  const renderer = RENDERERS[event.event_type];
  if (!renderer) throw new Error(`no renderer for ${event.event_type}`);
  const common = {
    event_id: event.event_id,
    occurred_at: event.occurred_at.toISOString(),
    is_live: event.mode === 'live',
    sequence: event.sequence,
  };
  if (usesCurrentShape(apiVersion) || !renderer.legacy) {
    const envelope = {
      api_version: apiVersion,
      event_id: common.event_id,
      event_type: event.event_type,
      occurred_at: common.occurred_at,
      is_live: common.is_live,
      business_id: String(event.merchant_id),
      sequence: common.sequence,
      data: renderer.current(event.data, event),
    };
    return { event_type: event.event_type, body: JSON.stringify(envelope) };
  }
  const eventType = renderer.legacy.event_type ?? event.event_type;
  const envelope = {
    event_id: common.event_id,
    event_type: eventType,
    occurred_at: common.occurred_at,
    is_live: common.is_live,
    sequence: common.sequence,
    data: renderer.legacy.data(event.data, event),
  };
  return { event_type: eventType, body: JSON.stringify(envelope) };
}
