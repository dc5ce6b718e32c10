import {
  outboxEvent,
  PlatformError,
  type Mode,
  type Money,
  type OutboxEntry,
  type SUBJECTS,
  type SubscriptionEvent,
} from '@ppay/kernel';
import type { Frequency, Period } from '../renewals/calendar';
import { newSubscription, type SubscriptionState } from './lifecycle';

export type MetadataValue = string | number | boolean;

/**
 * A subscription: one document, the aggregate of its lifecycle state (lifecycle.ts), what is sold and to
 * whom, the saved payment method renewals charge, and its sandbox clock.
 */
export interface SubscriptionRecord extends SubscriptionState {
  id: string;
  merchant_id: number;
  mode: Mode;
  /** Spec 6.4 product object; `id` is null for a checkout sold by product_name. */
  product: { id: number | null; title: string; type: string };
  customer: { email: string; first_name: string; last_name: string; country: string };
  /** The recurring price the merchant set; payments adds the fee when the customer pays fees. */
  amount: Money;
  metadata: Record<string, MetadataValue>;
  /** The hosted checkout session it came from; null for the sandbox helper. */
  checkout_session_id: string | null;
  /** Owned by payments; null until the checkout completes. */
  payment_method_id: string | null;
  card: { brand: string; last4: string } | null;
  /** Trial days asked for at checkout (applied when the checkout completes). */
  trial_days: number | null;
  /**
   * Sandbox clock: this subscription's time is the real time plus this offset (the advance helper moves
   * it forward; always 0 in live mode).
   */
  clock_offset_ms: number;
  /** Grows with every write: each write is conditional on the version it read (no lost updates). */
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** What a new subscription is made of; its lifecycle starts as newSubscription says, its clock at real time. */
export type SubscriptionDraft = Pick<
  SubscriptionRecord,
  | 'id'
  | 'merchant_id'
  | 'mode'
  | 'product'
  | 'customer'
  | 'amount'
  | 'metadata'
  | 'checkout_session_id'
  | 'payment_method_id'
  | 'card'
  | 'trial_days'
  | 'created_at'
  | 'updated_at'
> & { frequency: Frequency };

/** The one way a subscription record is made (from a checkout, or by the sandbox helper). */
export function newSubscriptionRecord(draft: SubscriptionDraft): SubscriptionRecord {
  return {
    ...newSubscription(draft.frequency),
    id: draft.id,
    merchant_id: draft.merchant_id,
    mode: draft.mode,
    product: draft.product,
    customer: draft.customer,
    amount: draft.amount,
    metadata: draft.metadata,
    checkout_session_id: draft.checkout_session_id,
    payment_method_id: draft.payment_method_id,
    card: draft.card,
    trial_days: draft.trial_days,
    clock_offset_ms: 0,
    version: 0,
    created_at: draft.created_at,
    updated_at: draft.updated_at,
  };
}

export function subscriptionNotFound(): PlatformError {
  return new PlatformError('SUBSCRIPTION_NOT_FOUND', undefined, { param: 'subscription_id' });
}

/** Sandbox test helpers (the helper's subscriptions, the sandbox clock) answer sandbox keys only. */
export function requireSandbox(mode: Mode): void {
  if (mode !== 'sandbox') {
    throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
  }
}

/** The subscription's own "now": real time plus its sandbox clock offset. */
export function clockOf(rec: Pick<SubscriptionRecord, 'clock_offset_ms'>, realNow: Date): Date {
  return new Date(realNow.getTime() + rec.clock_offset_ms);
}

/**
 * When the scheduler next has something to do for this subscription, on its own clock: renew (or end a
 * period-end cancellation), retry a declined charge, or finish a charge left in flight by a crash (at
 * once; on a cancelled subscription, settle it by a look-up). Null when nothing is scheduled (pending,
 * cancelled with nothing in flight, paused without a period-end cancellation).
 */
export function nextActionAt(s: SubscriptionState): Date | null {
  if (s.status === 'active') return s.cancel_at_period_end ? s.cancel_at : s.next_payment_date;
  if (s.status === 'due') return s.payment_status === 'pending' ? new Date(0) : s.next_retry_at;
  if (s.status === 'paused') return s.cancel_at_period_end ? s.cancel_at : null;
  if (s.status === 'cancelled' && s.payment_status === 'pending' && s.pending_period) return new Date(0);
  return null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const periodOut = (p: Period | null) =>
  p ? { index: p.index, start: p.start.toISOString(), end: p.end.toISOString() } : null;

/**
 * The wire resource (ppay.subscriptions.v1.Subscription): spec 2.5 (`product_id`, `customer_email`, the
 * price, whose flat REST `amount` + `currency` the gateway schema reads) plus the fields the spec leaves
 * unshown (docs/decisions.md, Subscriptions).
 */
export function subscriptionResource(rec: SubscriptionRecord, realNow: Date) {
  return {
    id: rec.id,
    product_id: rec.product.id,
    product_name: rec.product.title,
    customer_email: rec.customer.email,
    amount: rec.amount,
    frequency: rec.frequency,
    status: rec.status,
    payment_status: rec.payment_status,
    next_payment_date: rec.next_payment_date,
    created_at: rec.created_at,
    cancelled_at: rec.cancelled_at,
    current_period: rec.current_period,
    trial: rec.trial_start && rec.trial_end ? { trial_start: rec.trial_start, trial_end: rec.trial_end } : null,
    access_until: rec.access_until,
    cancel_at_period_end: rec.cancel_at_period_end,
    cancel_at: rec.cancel_at,
    paused_at: rec.paused_at,
    pause_reason: rec.pause_reason,
    next_retry_at: rec.next_retry_at,
    decline_reason: rec.decline_reason,
    attempts_left: rec.attempts_left,
    failed_attempts: rec.failed_attempts,
    last_payment_at: rec.last_payment_at,
    checkout_session_id: rec.checkout_session_id,
    mode: rec.mode,
    clock: clockOf(rec, realNow),
  };
}

/** The payload of every subscriptions.subscription.* event: the subscription after the change. */
export function subscriptionEvent(
  rec: SubscriptionRecord,
  cause: { effectiveAt: Date; chargeId?: string | null },
): SubscriptionEvent {
  return {
    subscription_id: rec.id,
    merchant_id: rec.merchant_id,
    status: rec.status,
    payment_status: rec.payment_status,
    product: rec.product,
    customer: { email: rec.customer.email, first_name: rec.customer.first_name, last_name: rec.customer.last_name },
    plan: { frequency: rec.frequency, amount: rec.amount, product_id: rec.product.id },
    current_period: periodOut(rec.current_period),
    trial:
      rec.trial_start && rec.trial_end
        ? { trial_start: rec.trial_start.toISOString(), trial_end: rec.trial_end.toISOString() }
        : null,
    next_payment_date: iso(rec.next_payment_date),
    access_until: iso(rec.access_until),
    cancel_at_period_end: rec.cancel_at_period_end,
    cancelled_at: iso(rec.cancelled_at),
    pause_reason: rec.pause_reason,
    dunning: {
      attempts_left: rec.attempts_left,
      next_retry_at: iso(rec.next_retry_at),
      decline_reason: rec.decline_reason,
    },
    checkout_session_id: rec.checkout_session_id,
    charge_id: cause.chargeId ?? null,
    effective_at: cause.effectiveAt.toISOString(),
    created_at: rec.created_at.toISOString(),
  };
}

/** The event for a status change, on the subscription's own clock. */
export function eventFor(
  subject: (typeof SUBJECTS)[keyof typeof SUBJECTS] & `subscriptions.${string}`,
  rec: SubscriptionRecord,
  effectiveAt: Date,
  chargeId: string | null = null,
): OutboxEntry {
  return outboxEvent(subject, subscriptionEvent(rec, { effectiveAt, chargeId }), {
    merchantId: rec.merchant_id,
    mode: rec.mode,
  });
}
