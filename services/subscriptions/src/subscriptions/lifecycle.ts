import { PlatformError } from '@ppay/kernel';
import { period, type Frequency, type Period } from '../renewals/calendar';
import { decideAfterFailure, MAX_ATTEMPTS_PER_PERIOD, type PauseCause } from '../renewals/dunning';
import { trialEnd } from './plan';

/**
 * Subscription lifecycle (spec 3.2) as pure transitions: each takes the current state and returns the
 * next one, or throws CONFLICT when the action is illegal in the current status. The repository applies
 * a result only while the stored document is still in the state it was computed from (conditional
 * update), so two workers or a worker and a partner request cannot both win.
 *
 * Three things are kept apart on purpose:
 *  - `status` is where the subscription is in its life (spec 3.2's five states);
 *  - `payment_status` is what happened to money most recently;
 *  - `access_until` is how long the customer has paid (or been given, for a trial) access.
 * A paused subscription can still have paid access left; a due one has a payment outstanding.
 */

export const SUBSCRIPTION_STATUSES = ['pending', 'active', 'due', 'cancelled', 'paused'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * - `none`: nothing has been charged yet (pending before checkout completes; a trial before its first charge).
 * - `pending`: a charge is in flight (claimed by the renewal worker, outcome not known yet). Exactly one
 *   charge can be in flight: claims require that none is.
 * - `paid`: the most recent charge succeeded.
 * - `failed`: the most recent charge failed (dunning under way while `due`; gave up when `paused`).
 */
export const PAYMENT_STATUSES = ['none', 'paid', 'failed', 'pending'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Why a subscription is paused: the merchant asked, or dunning gave up. */
export type PauseReason = 'merchant' | PauseCause;

export interface SubscriptionState {
  status: SubscriptionStatus;
  payment_status: PaymentStatus;
  frequency: Frequency;
  /** Period n starts at anchor + n × interval (calendar.ts). Set on activation; a trial anchors at its end. */
  billing_anchor: Date | null;
  /** The last paid billing period. Null while pending and during a trial. */
  current_period: Period | null;
  /** While due: the period the outstanding charge pays for; becomes current_period when it succeeds. */
  pending_period: Period | null;
  /** When the next charge attempt is planned: renewal date, or the next dunning retry; null when none will be made. */
  next_payment_date: Date | null;
  /** End of the last paid period, or of the trial. Access is `now < access_until`. */
  access_until: Date | null;
  trial_start: Date | null;
  trial_end: Date | null;
  last_payment_at: Date | null;
  /** Set by cancel({ atPeriodEnd: true }): the subscription does not renew and is cancelled at `cancel_at`. */
  cancel_at_period_end: boolean;
  cancel_at: Date | null;
  cancelled_at: Date | null;
  paused_at: Date | null;
  pause_reason: PauseReason | null;
  /** Dunning, per period: failed attempts so far, when the first failed, when the next retry runs. */
  failed_attempts: number;
  first_failure_at: Date | null;
  next_retry_at: Date | null;
  decline_reason: string | null;
  attempts_left: number;
}

const NO_DUNNING = {
  failed_attempts: 0,
  first_failure_at: null,
  next_retry_at: null,
  decline_reason: null,
  attempts_left: MAX_ATTEMPTS_PER_PERIOD,
} as const satisfies Partial<SubscriptionState>;

/** A new subscription waiting for its first payment (checkout) or for a trial to start. */
export function newSubscription(frequency: Frequency): SubscriptionState {
  return {
    status: 'pending',
    payment_status: 'none',
    frequency,
    billing_anchor: null,
    current_period: null,
    pending_period: null,
    next_payment_date: null,
    access_until: null,
    trial_start: null,
    trial_end: null,
    last_payment_at: null,
    cancel_at_period_end: false,
    cancel_at: null,
    cancelled_at: null,
    paused_at: null,
    pause_reason: null,
    ...NO_DUNNING,
  };
}

export function conflict(status: SubscriptionStatus, action: string): PlatformError {
  return new PlatformError('CONFLICT', `Subscription is ${status}; cannot ${action}`, {
    param: 'subscription_id',
    detail: status,
  });
}

function expectStatus(state: SubscriptionState, allowed: readonly SubscriptionStatus[], action: string): void {
  if (!allowed.includes(state.status)) throw conflict(state.status, action);
}

const inFlight = (state: SubscriptionState) => state.payment_status === 'pending';

/** Whether the customer should have access at `now`: a paid period or a trial that has not run out. */
export function hasAccess(state: SubscriptionState, now: Date): boolean {
  return state.status !== 'pending' && state.access_until !== null && now < state.access_until;
}

/** pending → active: the first payment succeeded; period 0 is anchored at its start. */
export function activate<S extends SubscriptionState>(
  state: S,
  input: { paidAt: Date; periodStart: Date; periodEnd: Date },
): S {
  expectStatus(state, ['pending'], 'activate');
  const first = period(input.periodStart, state.frequency, 0);
  // Later periods are computed from the anchor; a first period of another length would not line up with them.
  if (first.end.getTime() !== input.periodEnd.getTime()) {
    throw new RangeError(`periodEnd must be ${first.end.toISOString()} for a ${state.frequency} period`);
  }
  return {
    ...state,
    ...NO_DUNNING,
    status: 'active',
    payment_status: 'paid',
    billing_anchor: first.start,
    current_period: first,
    pending_period: null,
    next_payment_date: first.end,
    access_until: first.end,
    last_payment_at: input.paidAt,
  };
}

/**
 * pending → active without a charge. The billing anchor is the trial end (as Stripe's billing cycle
 * anchor), so the first charge is at trial end and pays for period 0 starting there.
 */
export function startTrial<S extends SubscriptionState>(state: S, input: { now: Date; trialDays: number }): S {
  expectStatus(state, ['pending'], 'start a trial');
  const end = trialEnd(input.now, input.trialDays);
  return {
    ...state,
    status: 'active',
    payment_status: 'none',
    billing_anchor: end,
    current_period: null,
    pending_period: null,
    trial_start: input.now,
    trial_end: end,
    next_payment_date: end,
    access_until: end,
  };
}

/**
 * active → due: the renewal worker claims a subscription whose next_payment_date has come and charges it.
 * The charge pays for the period after the current one (period 0 after a trial), even if the worker is
 * late: periods are never skipped, so an outage is caught up one period at a time.
 */
export function claimRenewal<S extends SubscriptionState>(state: S, now: Date): S {
  expectStatus(state, ['active'], 'renew');
  if (state.next_payment_date === null) throw conflict(state.status, 'renew: it is set to cancel at period end');
  if (state.next_payment_date > now) throw conflict(state.status, 'renew before next_payment_date');
  // An active subscription always has an anchor (activate / startTrial set it); its absence is corrupt data.
  if (state.billing_anchor === null) throw new RangeError('An active subscription must have a billing_anchor');
  const next = state.current_period ? state.current_period.index + 1 : 0;
  return {
    ...state,
    ...NO_DUNNING,
    status: 'due',
    payment_status: 'pending',
    pending_period: period(state.billing_anchor, state.frequency, next),
  };
}

/** due → due: the worker claims a dunning retry whose time has come (or the immediate retry after resume). */
export function claimRetry<S extends SubscriptionState>(state: S, now: Date): S {
  expectStatus(state, ['due'], 'retry');
  if (inFlight(state)) throw conflict(state.status, 'retry while a charge is in flight');
  if (state.next_retry_at === null || state.next_retry_at > now) {
    throw conflict(state.status, 'retry before next_retry_at');
  }
  return { ...state, payment_status: 'pending', next_retry_at: null };
}

function expectClaimedCharge(state: SubscriptionState, action: string): Period {
  expectStatus(state, ['due'], action);
  if (!inFlight(state) || !state.pending_period) throw conflict(state.status, `${action} without a charge in flight`);
  return state.pending_period;
}

/** due → active: the outstanding charge succeeded; its period becomes the current one. */
export function renewalSucceeded<S extends SubscriptionState>(state: S, input: { paidAt: Date }): S {
  const paid = expectClaimedCharge(state, 'record a renewal payment');
  return {
    ...state,
    ...NO_DUNNING,
    status: 'active',
    payment_status: 'paid',
    current_period: paid,
    pending_period: null,
    next_payment_date: paid.end,
    access_until: paid.end,
    last_payment_at: input.paidAt,
  };
}

/**
 * due → due with the next retry scheduled (dunning.ts), or due → paused when the schedule is exhausted
 * or the decline is hard. Either way payment_status is `failed`.
 */
export function renewalFailed<S extends SubscriptionState>(
  state: S,
  input: { failedAt: Date; declineCode?: string | null },
): S {
  expectClaimedCharge(state, 'record a renewal failure');
  const failedAttempts = state.failed_attempts + 1;
  const firstFailureAt = state.first_failure_at ?? input.failedAt;
  const decision = decideAfterFailure({ firstFailureAt, failedAttempts, declineCode: input.declineCode });
  const failed = {
    ...state,
    payment_status: 'failed' as const,
    failed_attempts: failedAttempts,
    first_failure_at: firstFailureAt,
    decline_reason: input.declineCode ?? null,
    attempts_left: decision.attemptsLeft,
  };
  if (decision.action === 'retry') return { ...failed, next_retry_at: decision.at, next_payment_date: decision.at };
  return {
    ...failed,
    status: 'paused',
    paused_at: input.failedAt,
    pause_reason: decision.cause,
    pending_period: null,
    next_retry_at: null,
    next_payment_date: null,
  };
}

/**
 * active|due → paused by the merchant: no charges are made while paused; paid access already granted is
 * kept. Refused while a charge is in flight, whose outcome would otherwise arrive for a paused subscription.
 */
export function pause<S extends SubscriptionState>(state: S, now: Date): S {
  expectStatus(state, ['active', 'due'], 'pause');
  if (inFlight(state)) throw conflict(state.status, 'pause while a charge is in flight');
  return {
    ...state,
    status: 'paused',
    paused_at: now,
    pause_reason: 'merchant',
    pending_period: null,
    next_retry_at: null,
    next_payment_date: null,
  };
}

/**
 * paused → …, depending on what has been paid:
 *  - access left (paid period or trial not over) → active, renewing at access_until as before;
 *  - nothing left and set to cancel at period end → cancelled at that period end (what periodEnded
 *    would have done had it not been paused);
 *  - nothing left → due with an immediate retry and a fresh dunning schedule, re-anchored at `now` so the
 *    customer pays for a whole period from now rather than for one that is mostly over.
 */
export function resume<S extends SubscriptionState>(state: S, now: Date): S {
  expectStatus(state, ['paused'], 'resume');
  const resumed = { ...state, paused_at: null, pause_reason: null };
  if (state.access_until !== null && state.access_until > now) {
    return {
      ...resumed,
      status: 'active',
      next_payment_date: state.cancel_at_period_end ? null : state.access_until,
    };
  }
  if (state.cancel_at_period_end) {
    return { ...resumed, status: 'cancelled', cancelled_at: state.cancel_at ?? state.access_until };
  }
  return {
    ...resumed,
    ...NO_DUNNING,
    status: 'due',
    billing_anchor: now,
    pending_period: period(now, state.frequency, 0),
    next_retry_at: now,
    next_payment_date: now,
  };
}

export interface CancelResult<S> {
  state: S;
  /** False when nothing was written: already cancelled, or already set to cancel at period end. */
  changed: boolean;
  /** The subscription was cancelled before this call; `state.cancelled_at` is the original time. */
  alreadyCancelled: boolean;
}

/**
 * Spec 4.6 plus the cases it does not show:
 *  - active → cancelled now (cancelled_at = now; paid access ends now too);
 *  - active with atPeriodEnd → stays active, cancel_at_period_end = true, no further charge, and
 *    periodEnded cancels it at the end of the paid period (if that end has already passed: cancelled now);
 *  - pending, due, paused → cancelled now, whatever atPeriodEnd says: none of them has a running paid
 *    period to wait for, and dunning stops;
 *  - cancelled → unchanged with alreadyCancelled (idempotent, as Stripe answers a second cancel with the
 *    cancelled subscription), so a retried request gets the same 200 and the original cancelled_at.
 * A charge in flight when a due subscription is cancelled may exist and may still succeed: the cancelled
 * subscription keeps it in flight (`payment_status: pending`, its `pending_period`, whose start and attempt
 * make its key), renewalSucceeded refuses it (the subscription is no longer due), and the scheduler
 * settles it by looking the charge up, never by charging: lateOutcomeRecorded or chargeNeverMade.
 */
export function cancel<S extends SubscriptionState>(
  state: S,
  input: { now: Date; atPeriodEnd?: boolean },
): CancelResult<S> {
  if (state.status === 'cancelled') return { state, changed: false, alreadyCancelled: true };
  const { now } = input;
  const termEnd = state.access_until;
  if (state.status === 'active' && input.atPeriodEnd && termEnd !== null && termEnd > now) {
    if (state.cancel_at_period_end) return { state, changed: false, alreadyCancelled: false };
    return {
      state: { ...state, cancel_at_period_end: true, cancel_at: termEnd, next_payment_date: null },
      changed: true,
      alreadyCancelled: false,
    };
  }
  return {
    state: {
      ...state,
      status: 'cancelled',
      cancelled_at: now,
      cancel_at_period_end: false,
      cancel_at: null,
      access_until: termEnd !== null && termEnd > now ? now : termEnd,
      pending_period: inFlight(state) ? state.pending_period : null,
      next_retry_at: null,
      next_payment_date: null,
    },
    changed: true,
    alreadyCancelled: false,
  };
}

/** active|paused set to cancel at period end → cancelled once cancel_at has come; cancelled_at is cancel_at. */
export function periodEnded<S extends SubscriptionState>(state: S, now: Date): S {
  expectStatus(state, ['active', 'paused'], 'end its period');
  if (!state.cancel_at_period_end || state.cancel_at === null) {
    throw conflict(state.status, 'end its period: it is not set to cancel at period end');
  }
  if (state.cancel_at > now) throw conflict(state.status, 'end its period before cancel_at');
  return {
    ...state,
    status: 'cancelled',
    cancelled_at: state.cancel_at,
    pending_period: null,
    next_retry_at: null,
    next_payment_date: null,
  };
}

/**
 * A renewal charge that was in flight when the subscription was cancelled has finished. The money has moved
 * (or not) whatever the subscription's status: a success is recorded — the customer paid for that period,
 * so access runs to its end — but the subscription stays cancelled and nothing more is charged. Refusing it
 * would leave a charge (and a wallet credit) that no subscription knows about; refunds are not built yet.
 * A success also lands after the charge was settled as never made (a scheduler's request reached payments
 * only after another had looked it up and found nothing): it is recorded all the same. Null when there is
 * nothing to record: this outcome is recorded already, or it is a decline of a charge no longer in flight.
 */
export function lateOutcomeRecorded<S extends SubscriptionState>(
  state: S,
  input: { at: Date; period: Period; succeeded: boolean; declineCode?: string | null },
): S | null {
  expectStatus(state, ['cancelled'], 'record a late charge outcome');
  const start = input.period.start.getTime();
  const stillInFlight = inFlight(state) && state.pending_period?.start.getTime() === start;
  if (!input.succeeded) {
    if (!stillInFlight) return null;
    return { ...state, payment_status: 'failed', pending_period: null, decline_reason: input.declineCode ?? null };
  }
  // Periods only move forward (a resume re-anchors them later): one starting at or after this one is paid.
  const paidAlready = state.current_period !== null && state.current_period.start.getTime() >= start;
  if (!stillInFlight && paidAlready) return null;
  const accessUntil =
    state.access_until !== null && state.access_until > input.period.end ? state.access_until : input.period.end;
  return {
    ...state,
    payment_status: 'paid',
    current_period: input.period,
    pending_period: stillInFlight ? null : state.pending_period,
    access_until: accessUntil,
    last_payment_at: input.at,
    decline_reason: null,
  };
}

/**
 * A cancelled subscription's renewal was in flight, and payments holds no charge by its key: the scheduler
 * stopped before asking (a crash). Nothing was charged and nothing will be: the charge is no longer in
 * flight, and `payment_status` is again what the last recorded charge left (`failed` during dunning, `paid`
 * after a payment, `none` when nothing was ever charged).
 */
export function chargeNeverMade<S extends SubscriptionState>(state: S): S {
  expectStatus(state, ['cancelled'], 'give up a charge in flight');
  if (!inFlight(state)) throw conflict(state.status, 'give up a charge without a charge in flight');
  const before = state.failed_attempts > 0 ? 'failed' : state.last_payment_at !== null ? 'paid' : 'none';
  return { ...state, payment_status: before, pending_period: null };
}
