import {
  addMoney,
  installmentSchedule,
  outboxEvent,
  PlatformError,
  subtractMoney,
  type InstallmentInterval,
  type InstallmentPlanEvent,
  type Mode,
  type Money,
  type OutboxEntry,
  type SUBJECTS,
} from '@ppay/kernel';
import type { MetadataValue } from '../subscriptions/subscription';
import { clockOf } from '../subscriptions/subscription';
import type { PauseCause } from '../renewals/dunning';
import { MAX_ATTEMPTS_PER_PERIOD } from '../renewals/dunning';
import type { ClockedKind } from '../renewals/sandbox-clock';

/**
 * An installment plan (issue 26): a total paid in `count` parts on a schedule, the first on the hosted
 * checkout page, the others off-session with the saved card. One document: the plan, its parts (at most
 * 12), the charge in flight and its sandbox clock, so every change is one conditional write.
 */
export const PLAN_STATUSES = ['active', 'completed', 'defaulted', 'cancelled'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/**
 * - `scheduled`: not charged yet (due or not);
 * - `pending`: a charge is in flight (at most one per plan: `charging` names it);
 * - `retrying`: declined, the next attempt is at `next_retry_at` (dunning);
 * - `paid`: charged once, for good;
 * - `failed`: declined for good (the plan defaulted on it);
 * - `cancelled`: will never be charged (the plan was cancelled or defaulted before it).
 */
export const PART_STATUSES = ['scheduled', 'pending', 'retrying', 'paid', 'failed', 'cancelled'] as const;
export type PartStatus = (typeof PART_STATUSES)[number];

export interface InstallmentPart {
  number: number;
  amount: Money;
  due_at: Date;
  status: PartStatus;
  /** The part's latest charge: the one that paid it once paid. */
  charge_id: string | null;
  paid_at: Date | null;
  /** Dunning of this part: failures so far, when the first was, when the next attempt runs. */
  failed_attempts: number;
  first_failure_at: Date | null;
  next_retry_at: Date | null;
  decline_reason: string | null;
}

export type DefaultReason = PauseCause;

export interface InstallmentPlanRecord {
  id: string;
  merchant_id: number;
  mode: Mode;
  status: PlanStatus;
  /** Spec 6.4 product object; `id` is null for a checkout sold by product_name. */
  product: { id: number | null; title: string; type: string };
  customer: { email: string; first_name: string; last_name: string; country: string };
  /** What the parts add up to, in the customer's currency (before any fee the customer pays per part). */
  total: Money;
  count: number;
  interval: InstallmentInterval;
  parts: InstallmentPart[];
  /** The charge in flight: its part and attempt (the key is installmentKey of both). */
  charging: { number: number; attempt: number } | null;
  /** Owned by payments: the card saved on the checkout page. */
  payment_method_id: string;
  card: { brand: string; last4: string };
  checkout_session_id: string;
  metadata: Record<string, MetadataValue>;
  completed_at: Date | null;
  cancelled_at: Date | null;
  defaulted_at: Date | null;
  default_reason: DefaultReason | null;
  /** Sandbox clock: the plan's time is the real time plus this offset (0 in live mode). */
  clock_offset_ms: number;
  /** Grows with every write: each write is conditional on the version it read. */
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** What a plan is made of: the paid checkout it comes from. */
export type InstallmentPlanDraft = Pick<
  InstallmentPlanRecord,
  | 'id'
  | 'merchant_id'
  | 'mode'
  | 'product'
  | 'customer'
  | 'total'
  | 'count'
  | 'interval'
  | 'payment_method_id'
  | 'card'
  | 'checkout_session_id'
  | 'metadata'
> & {
  /** The first part's payment on the hosted page: it anchors the schedule. */
  first: { charge_id: string; paid_at: Date };
};

const unpaid = (p: Pick<InstallmentPart, 'number' | 'amount' | 'due_at'>): InstallmentPart => ({
  ...p,
  status: 'scheduled',
  charge_id: null,
  paid_at: null,
  failed_attempts: 0,
  first_failure_at: null,
  next_retry_at: null,
  decline_reason: null,
});

/** The one way a plan is made: active, part 1 paid at checkout, the others scheduled from that payment. */
export function newInstallmentPlan(d: InstallmentPlanDraft): InstallmentPlanRecord {
  const [first, ...later] = installmentSchedule(d.total, { count: d.count, interval: d.interval }, d.first.paid_at);
  return {
    id: d.id,
    merchant_id: d.merchant_id,
    mode: d.mode,
    status: 'active',
    product: d.product,
    customer: d.customer,
    total: d.total,
    count: d.count,
    interval: d.interval,
    parts: [
      { ...unpaid(first!), status: 'paid', charge_id: d.first.charge_id, paid_at: d.first.paid_at },
      ...later.map(unpaid),
    ],
    charging: null,
    payment_method_id: d.payment_method_id,
    card: d.card,
    checkout_session_id: d.checkout_session_id,
    metadata: d.metadata,
    completed_at: null,
    cancelled_at: null,
    defaulted_at: null,
    default_reason: null,
    clock_offset_ms: 0,
    version: 0,
    created_at: d.first.paid_at,
    updated_at: d.first.paid_at,
  };
}

/** The idempotency key of one charge attempt: never two charges for one (plan, part, attempt). */
export function installmentKey(planId: string, number: number, attempt: number): string {
  return `inst:${planId}:${number}:${attempt}`;
}

export function planNotFound(): PlatformError {
  return new PlatformError('INSTALLMENT_PLAN_NOT_FOUND', undefined, { param: 'plan_id' });
}

/** The part being paid: the first one not paid (undefined once every part is paid). */
export function currentPart(rec: Pick<InstallmentPlanRecord, 'parts'>): InstallmentPart | undefined {
  return rec.parts.find((p) => p.status !== 'paid');
}

/** Sum of the paid parts. */
export function amountPaid(rec: Pick<InstallmentPlanRecord, 'parts' | 'total'>): Money {
  return rec.parts
    .filter((p) => p.status === 'paid')
    .reduce((sum, p) => addMoney(sum, p.amount), { amount: 0, currency: rec.total.currency } as Money);
}

export const amountRemaining = (rec: Pick<InstallmentPlanRecord, 'parts' | 'total'>): Money =>
  subtractMoney(rec.total, amountPaid(rec));

/** Attempts a part may still get after `failedAttempts` failures (the scheduled one plus three retries). */
export const attemptsLeft = (failedAttempts: number) => Math.max(0, MAX_ATTEMPTS_PER_PERIOD - failedAttempts);

/**
 * When the scheduler next has something to do for this plan, on its own clock: finish a charge left in
 * flight (at once; for a plan cancelled meanwhile by looking the charge up: the money may have moved),
 * charge the current part when it falls due, or retry it. Null when nothing will be charged.
 */
export function nextActionAt(rec: Pick<InstallmentPlanRecord, 'status' | 'charging' | 'parts'>): Date | null {
  if (rec.charging) return new Date(0);
  if (rec.status !== 'active') return null;
  const part = currentPart(rec);
  return part ? (part.next_retry_at ?? part.due_at) : null;
}

/** When the next charge of an active plan is planned (its current part's due date or retry); null otherwise. */
export function nextPaymentDate(rec: InstallmentPlanRecord): Date | null {
  if (rec.status !== 'active') return null;
  const part = currentPart(rec);
  return part ? (part.next_retry_at ?? part.due_at) : null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The wire resource (ppay.subscriptions.v1.InstallmentPlan): the plan with its schedule and totals. */
export function installmentPlanResource(rec: InstallmentPlanRecord, realNow: Date) {
  return {
    id: rec.id,
    status: rec.status,
    product_id: rec.product.id,
    product_name: rec.product.title,
    product_type: rec.product.type,
    customer_email: rec.customer.email,
    total: rec.total,
    amount_paid: amountPaid(rec),
    amount_remaining: amountRemaining(rec),
    count: rec.count,
    interval: rec.interval,
    parts: rec.parts.map((p) => ({
      number: p.number,
      amount: p.amount,
      due_at: p.due_at,
      status: p.status,
      charge_id: p.charge_id,
      paid_at: p.paid_at,
      failed_attempts: p.failed_attempts,
      next_retry_at: p.next_retry_at,
      decline_reason: p.decline_reason,
    })),
    next_payment_date: nextPaymentDate(rec),
    card: rec.card,
    checkout_session_id: rec.checkout_session_id,
    created_at: rec.created_at,
    completed_at: rec.completed_at,
    cancelled_at: rec.cancelled_at,
    defaulted_at: rec.defaulted_at,
    default_reason: rec.default_reason,
    mode: rec.mode,
    clock: clockOf(rec, realNow),
  };
}

/** The payload of every subscriptions.installment_plan.* event: the plan after the change. */
export function installmentPlanEvent(rec: InstallmentPlanRecord, effectiveAt: Date): InstallmentPlanEvent {
  return {
    plan_id: rec.id,
    merchant_id: rec.merchant_id,
    status: rec.status,
    product: rec.product,
    customer: { email: rec.customer.email, first_name: rec.customer.first_name, last_name: rec.customer.last_name },
    total: rec.total,
    amount_paid: amountPaid(rec),
    amount_remaining: amountRemaining(rec),
    count: rec.count,
    interval: rec.interval,
    parts: rec.parts.map((p) => ({
      number: p.number,
      amount: p.amount,
      due_at: p.due_at.toISOString(),
      status: p.status,
      charge_id: p.charge_id,
      paid_at: iso(p.paid_at),
    })),
    next_payment_date: iso(nextPaymentDate(rec)),
    checkout_session_id: rec.checkout_session_id,
    completed_at: iso(rec.completed_at),
    cancelled_at: iso(rec.cancelled_at),
    defaulted_at: iso(rec.defaulted_at),
    default_reason: rec.default_reason,
    effective_at: effectiveAt.toISOString(),
    created_at: rec.created_at.toISOString(),
  };
}

/** The event for a plan's change, on the plan's own clock. */
export function planEventFor(
  subject: (typeof SUBJECTS)[keyof typeof SUBJECTS] & `subscriptions.installment_plan.${string}`,
  rec: InstallmentPlanRecord,
  effectiveAt: Date,
): OutboxEntry {
  return outboxEvent(subject, installmentPlanEvent(rec, effectiveAt), { merchantId: rec.merchant_id, mode: rec.mode });
}

/** How the sandbox clock names a plan. */
export const PLAN_CLOCK: ClockedKind = { noun: 'installment plan', param: 'plan_id', notFound: planNotFound };
