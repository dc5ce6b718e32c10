import {
  installmentSchedule,
  subtractMoney,
  type InstallmentInterval,
  type Mode,
  type Money,
  type PaymentOutcome,
  type ShippingAddress,
} from '@ppay/kernel';
import {
  newCharge,
  type ChargeRecord,
  type ChargeSplit,
  type CustomerDetails,
  type MetadataValue,
} from '../charges/charge';
import type { FeeBreakdown } from '../charges/fees';
import { paymentOutcome } from '../charges/payment-outcome';
import type { CardSummary, TestCard } from '../processors/cards';
import type { ProcessorGroup } from '../processors/processors';
import type { GoodsLine } from './physical-goods';
import { redirectOrigins } from './redirects';

/**
 * A hosted checkout session (spec 2.3, 3.1, 4.2, 4.3): its own aggregate, one document. The payment
 * made on it lives inside that document, so "payment succeeded + session completed +
 * payment.succeeded event" is one single-document write (docs/decisions.md, payment sessions 2).
 */
export type SessionStatus = 'pending' | 'completed' | 'expired' | 'failed';
export type PaymentType = 'one_time' | 'subscription' | 'installment';

/**
 * An installment session's plan (issue 26): the partner's amount split into `count` parts, each with its
 * own fee (spec 4.1), fixed when the session is created. The first part is what the page charges (the
 * session's `amount` and `fee_details`); subscriptions charges the others, under `plan_id`.
 */
export interface SessionInstallments {
  plan_id: string;
  count: number;
  interval: InstallmentInterval;
  /** What the parts add up to: the amount the partner sent. */
  total: Money;
  /** Each part as the customer pays it: the part itself, its fee and what is charged. */
  parts: { number: number; base: Money; fee: Money; total: Money }[];
}

/** A declined or failed attempt: its own charge id and transaction id, as payment.failed carries. */
export interface SessionAttempt {
  charge_id: string;
  transaction_id: string;
  status: 'failed';
  decline_code: string;
  card: CardSummary;
  at: Date;
}

/** The successful payment, a full charge record so the outcome event is built like a charge's. */
export type SessionPayment = ChargeRecord & { card: CardSummary };

export interface SessionRecord {
  session_id: string;
  gateway_session_id: string;
  /**
   * Where the customer pays when it is the processor's own page (a live Stripe Checkout Session's URL);
   * null: our hosted page, whose public address the gateway owns (docs/decisions.md, S25).
   */
  payment_url: string | null;
  merchant_id: number;
  mode: Mode;
  status: SessionStatus;
  /** What the customer pays: fee included when the customer pays fees (spec 2.3). */
  amount: Money;
  processor_group: ProcessorGroup;
  payment_gateway: string;
  product: { id: number | null; name: string; type: string };
  customer: CustomerDetails;
  success_url: string;
  cancel_url: string;
  payment_type: PaymentType;
  subscription_frequency_key: string | null;
  /** Beyond the spec: free trial days of a subscription session (null: the first period is charged now). */
  trial_days: number | null;
  /** Installment sessions only (payment_type `installment`). */
  installments: SessionInstallments | null;
  /** A physical product's session: what it buys (the order it makes once paid). */
  goods: GoodsLine | null;
  /** Where the goods ship: typed on our page, or collected by the processor's (live), stored with the payment. */
  shipping_address: ShippingAddress | null;
  /** A marketplace session (the operator's key): the sub-merchant it sells for, and the split's terms then. */
  sub_merchant_id: number | null;
  split: ChargeSplit | null;
  /**
   * The stock hold of a physical product's session (keyed by the session in fx-pricing): `open` while
   * it may be taken or given back, `release` after a declined card (its units go back; the session stays
   * open), `commit` once paid (the units stay sold), `settled` when fx-pricing has been told the end. The
   * stock sweep finishes `commit`, `release`, and `open` on a session that can no longer be paid
   * (expired, failed). A live session's units are held from its creation (`open` until its processor's
   * session is made), then `held` until the processor says it was paid (`commit`) or expired
   * (`release`): our clock alone never gives them back (docs/decisions.md, S32, S35).
   */
  stock_state: 'open' | 'held' | 'release' | 'commit' | 'settled' | null;
  metadata: Record<string, MetadataValue>;
  /** Spec 2.3 fee_details (its base is the spec's base_product_price). */
  fee_details: FeeBreakdown;
  expires_at: Date;
  created_at: Date;
  completed_at: Date | null;
  updated_at: Date;
  payment: SessionPayment | null;
  attempts: SessionAttempt[];
  attempt_count: number;
  /** A payment attempt in progress (claimed before the processor is called, so one session cannot be paid twice). */
  in_flight: { attempt_id: string; started_at: Date } | null;
  idempotency_key: string | null;
}

/** What a new session is made of: its request, its pricing and its processor's session. */
export type SessionDraft = Pick<
  SessionRecord,
  | 'session_id'
  | 'gateway_session_id'
  | 'payment_url'
  | 'merchant_id'
  | 'mode'
  | 'processor_group'
  | 'payment_gateway'
  | 'product'
  | 'customer'
  | 'success_url'
  | 'cancel_url'
  | 'subscription_frequency_key'
  | 'trial_days'
  | 'installments'
  | 'goods'
  | 'sub_merchant_id'
  | 'split'
  | 'metadata'
  | 'expires_at'
  | 'idempotency_key'
> & { fee: FeeBreakdown };

/** A new session, pending with no attempt yet: the one place a session is drafted. */
export function newSession(d: SessionDraft, now: Date): SessionRecord {
  return {
    session_id: d.session_id,
    gateway_session_id: d.gateway_session_id,
    payment_url: d.payment_url,
    merchant_id: d.merchant_id,
    mode: d.mode,
    status: 'pending',
    amount: d.fee.total,
    processor_group: d.processor_group,
    payment_gateway: d.payment_gateway,
    product: d.product,
    customer: d.customer,
    success_url: d.success_url,
    cancel_url: d.cancel_url,
    payment_type: d.installments ? 'installment' : d.subscription_frequency_key ? 'subscription' : 'one_time',
    subscription_frequency_key: d.subscription_frequency_key,
    trial_days: d.trial_days,
    installments: d.installments,
    goods: d.goods,
    sub_merchant_id: d.sub_merchant_id,
    split: d.split,
    shipping_address: null,
    stock_state: d.goods ? 'open' : null,
    metadata: d.metadata,
    fee_details: d.fee,
    expires_at: d.expires_at,
    created_at: now,
    completed_at: null,
    updated_at: now,
    payment: null,
    attempts: [],
    attempt_count: 0,
    in_flight: null,
    idempotency_key: d.idempotency_key,
  };
}

/** The charge a payment attempt on the session makes (its own charge and transaction ids). */
export function attemptCharge(s: SessionRecord, now: Date): ChargeRecord {
  return newCharge(
    {
      kind: 'checkout',
      session_id: s.session_id,
      success_url: s.success_url,
      sub_merchant_id: s.sub_merchant_id,
      split: s.split,
      merchant_id: s.merchant_id,
      mode: s.mode,
      processor_group: s.processor_group,
      payment_gateway: s.payment_gateway,
      amount: s.fee_details.base,
      fee_details: s.fee_details,
      customer: s.customer,
      metadata: s.metadata,
      description: s.product.name,
    },
    now,
  );
}

/** payment.succeeded / payment.failed for a session's charge: the charge outcome plus the session's data. */
export function sessionOutcome(s: SessionRecord, charge: ChargeRecord, at: Date): PaymentOutcome {
  const status = charge.status === 'succeeded' ? 'succeeded' : 'failed';
  return {
    ...paymentOutcome(charge, status, charge.failure_reason, at),
    payment_type: s.payment_type,
    session_id: s.session_id,
    product: { id: s.product.id, title: s.product.name, type: s.product.type },
    subscription_frequency_key: s.subscription_frequency_key,
    metadata: s.metadata,
    variation: s.goods?.variation ?? null,
    quantity: s.goods?.quantity ?? null,
    installment: s.installments && {
      plan_id: s.installments.plan_id,
      number: 1,
      count: s.installments.count,
      // What is left once this part is paid; all of it when the first part failed.
      amount_remaining:
        status === 'succeeded'
          ? subtractMoney(s.installments.total, s.installments.parts[0]!.base)
          : s.installments.total,
    },
  };
}

/**
 * The schedule as the customer and the partner see it: each part's amounts and its due date, counted
 * from the first payment (once paid) or, before that, from `now` (the dates if the customer paid now).
 */
export function installmentsResource(i: SessionInstallments | null, firstPaymentAt: Date) {
  if (!i) return null;
  const dates = installmentSchedule(i.total, i, firstPaymentAt);
  return {
    plan_id: i.plan_id,
    count: i.count,
    interval: i.interval,
    total: i.total,
    schedule: i.parts.map((p, n) => ({ ...p, due_at: dates[n]!.due_at })),
  };
}

/** The wire PaymentSession: the record, its installment schedule dated from the payment or from `now`. */
export function sessionResource(s: SessionRecord, now: Date) {
  return { ...s, installments: installmentsResource(s.installments, s.completed_at ?? now) };
}

/**
 * The charge of a paid session as the charges collection keeps it (without the card the session shows):
 * copied there so a checkout payment is read, listed, refunded and disputed like any charge.
 */
export function paidCharge(s: Pick<SessionRecord, 'payment'>): ChargeRecord | null {
  if (!s.payment) return null;
  const { card: _card, ...charge } = s.payment;
  return charge;
}

/** How a finished payment attempt changes its session. */
export interface AttemptChange {
  status: SessionStatus;
  completed_at: Date | null;
  payment: SessionPayment | null;
  attempt: SessionAttempt | null;
  /** A paid physical product: where it ships, and its stock now sold (`commit`); a declined one's to give back (`release`). */
  shipping_address?: ShippingAddress;
  stock_state?: 'commit' | 'release';
  now: Date;
}

/**
 * How a live session's processor closes it (its events): paid, with the payment, or expired. The
 * customer never pays a live session on our page, so there is no attempt to finish.
 */
export type ProcessorClose =
  | { status: 'completed'; payment: SessionPayment | null; now: Date; goods?: GoodsClose }
  | {
      status: 'expired';
      now: Date;
      /** A live physical session's units go back (`held` → `release`, from pending or expired by our clock). */
      release_stock?: boolean;
    };

/**
 * A live physical session paid at its processor: where it ships and its units sold (`commit`), in the
 * completing write, which also requires the units still held as `stock_from` says (`held`; `settled`
 * when they were given back and taken again for this payment, S35).
 */
export interface GoodsClose {
  shipping_address: ShippingAddress;
  stock_from: 'held' | 'settled';
}

/** Spec 3.1 at read time: a pending session past expires_at is expired, whether or not it was swept. */
export function effectiveStatus(s: SessionRecord, now: Date): SessionStatus {
  if (s.status === 'pending' && s.expires_at.getTime() <= now.getTime() && !s.in_flight) return 'expired';
  return s.status;
}

/** What the hosted checkout page shows (payments.proto CheckoutView). */
export function checkoutView(
  s: SessionRecord,
  page: { business_name: string; attempts_left: number; test_cards: TestCard[]; last_decline_message?: string },
  now: Date,
) {
  return {
    ...sessionResource(s, now),
    customer_pays_fees: s.fee_details.customer_pays_fees,
    customer_email: s.customer.email,
    product_name: s.product.name,
    // A live session is paid on its processor's page (payment_url), never ours: no form here (sessions 14).
    payments_enabled: s.mode === 'sandbox',
    processor_payment_url: s.mode === 'live' ? (s.payment_url ?? '') : '',
    has_success_url: Boolean(s.success_url),
    has_cancel_url: Boolean(s.cancel_url),
    redirect_origins: redirectOrigins([s.success_url, s.cancel_url]),
    ...page,
  };
}
