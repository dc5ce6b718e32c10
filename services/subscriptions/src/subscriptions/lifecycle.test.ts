import type { PlatformError } from '@ppay/kernel';
import {
  activate,
  cancel,
  claimRenewal,
  claimRetry,
  hasAccess,
  lateOutcomeRecorded,
  newSubscription,
  pause,
  periodEnded,
  renewalFailed,
  renewalSucceeded,
  resume,
  startTrial,
  type SubscriptionState,
} from './lifecycle';

const t = (iso: string) => new Date(iso);
const DAY = 86_400_000;
const plus = (d: Date, days: number) => new Date(d.getTime() + days * DAY);

// Checkout on Jan 31: month-end anchoring shows up in every renewal below.
const T0 = t('2026-01-31T10:00:00.000Z');
const FEB_28 = t('2026-02-28T10:00:00.000Z');
const MAR_31 = t('2026-03-31T10:00:00.000Z');
const APR_30 = t('2026-04-30T10:00:00.000Z');
const LATE = t('2030-01-01T00:00:00.000Z');

const pending = () => newSubscription('monthly');
const active = () => activate(pending(), { paidAt: T0, periodStart: T0, periodEnd: FEB_28 });
const trialing = () => startTrial(pending(), { now: T0, trialDays: 14 });
const dueClaimed = () => claimRenewal(active(), FEB_28);
const dueWaiting = () => renewalFailed(dueClaimed(), { failedAt: FEB_28, declineCode: 'insufficient_funds' });
const pausedByMerchant = () => pause(active(), t('2026-02-10T00:00:00.000Z'));
const pausedByDunning = () => renewalFailed(dueClaimed(), { failedAt: FEB_28, declineCode: 'expired_card' });
const cancelled = () => cancel(active(), { now: t('2026-02-10T00:00:00.000Z') }).state;
const endingAtPeriodEnd = () => cancel(active(), { now: t('2026-02-10T00:00:00.000Z'), atPeriodEnd: true }).state;

const FIXTURES: Record<string, () => SubscriptionState> = {
  pending,
  active,
  trialing,
  dueClaimed,
  dueWaiting,
  pausedByMerchant,
  pausedByDunning,
  cancelled,
  endingAtPeriodEnd,
};

const ACTIONS: Record<string, { run: (s: SubscriptionState) => unknown; legalFrom: string[] }> = {
  activate: {
    run: (s) => activate(s, { paidAt: LATE, periodStart: LATE, periodEnd: t('2030-02-01T00:00:00.000Z') }),
    legalFrom: ['pending'],
  },
  startTrial: { run: (s) => startTrial(s, { now: LATE, trialDays: 7 }), legalFrom: ['pending'] },
  claimRenewal: { run: (s) => claimRenewal(s, LATE), legalFrom: ['active', 'trialing'] },
  claimRetry: { run: (s) => claimRetry(s, LATE), legalFrom: ['dueWaiting'] },
  renewalSucceeded: { run: (s) => renewalSucceeded(s, { paidAt: LATE }), legalFrom: ['dueClaimed'] },
  renewalFailed: { run: (s) => renewalFailed(s, { failedAt: LATE }), legalFrom: ['dueClaimed'] },
  pause: { run: (s) => pause(s, LATE), legalFrom: ['active', 'trialing', 'dueWaiting', 'endingAtPeriodEnd'] },
  resume: { run: (s) => resume(s, LATE), legalFrom: ['pausedByMerchant', 'pausedByDunning'] },
  periodEnded: { run: (s) => periodEnded(s, LATE), legalFrom: ['endingAtPeriodEnd'] },
  cancel: { run: (s) => cancel(s, { now: LATE }), legalFrom: Object.keys(FIXTURES) },
};

describe('transition matrix', () => {
  const cases = Object.entries(ACTIONS).flatMap(([action, { run, legalFrom }]) =>
    Object.keys(FIXTURES).map((fixture) => [action, fixture, legalFrom.includes(fixture), run] as const),
  );

  it.each(cases)('%s from %s: legal=%p', (_action, fixture, legal, run) => {
    const state = FIXTURES[fixture]!();
    if (legal) {
      expect(() => run(state)).not.toThrow();
      return;
    }
    let error: PlatformError | undefined;
    try {
      run(state);
    } catch (err) {
      error = err as PlatformError;
    }
    expect(error).toMatchObject({ code: 'CONFLICT', param: 'subscription_id', detail: state.status });
    expect(error!.message).toMatch(new RegExp(`^Subscription is ${state.status}; cannot `));
  });

  it('transitions never mutate their input', () => {
    for (const fixture of Object.values(FIXTURES)) {
      for (const { run } of Object.values(ACTIONS)) {
        const state = fixture();
        const snapshot = structuredClone(state);
        try {
          run(state);
        } catch {
          // illegal transitions are covered above
        }
        expect(state).toEqual(snapshot);
      }
    }
  });
});

describe('pending', () => {
  it('starts with nothing paid, no dates, four attempts available', () => {
    expect(pending()).toMatchObject({
      status: 'pending',
      payment_status: 'none',
      billing_anchor: null,
      next_payment_date: null,
      access_until: null,
      attempts_left: 4,
      cancel_at_period_end: false,
    });
    expect(hasAccess(pending(), T0)).toBe(false);
  });

  it('activate: first payment anchors period 0 and grants access to its end', () => {
    expect(active()).toMatchObject({
      status: 'active',
      payment_status: 'paid',
      billing_anchor: T0,
      current_period: { index: 0, start: T0, end: FEB_28 },
      next_payment_date: FEB_28,
      access_until: FEB_28,
      last_payment_at: T0,
    });
    expect(hasAccess(active(), t('2026-02-28T09:59:59.999Z'))).toBe(true);
    expect(hasAccess(active(), FEB_28)).toBe(false);
  });

  it('activate refuses a period end that does not match the frequency (caller bug)', () => {
    expect(() =>
      activate(pending(), { paidAt: T0, periodStart: T0, periodEnd: t('2026-03-03T10:00:00.000Z') }),
    ).toThrow(RangeError);
  });

  it('startTrial: active with no charge, billing anchored at trial end', () => {
    const end = t('2026-02-14T10:00:00.000Z');
    expect(trialing()).toMatchObject({
      status: 'active',
      payment_status: 'none',
      trial_start: T0,
      trial_end: end,
      billing_anchor: end,
      current_period: null,
      next_payment_date: end,
      access_until: end,
    });
    expect(() => startTrial(pending(), { now: T0, trialDays: 0 })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', param: 'trial_days' }),
    );
  });

  it('the first charge after a trial pays for period 0 starting at trial end', () => {
    const end = t('2026-02-14T10:00:00.000Z');
    const due = claimRenewal(trialing(), end);
    expect(due.pending_period).toEqual({ index: 0, start: end, end: t('2026-03-14T10:00:00.000Z') });
    const paid = renewalSucceeded(due, { paidAt: end });
    expect(paid).toMatchObject({ status: 'active', payment_status: 'paid', trial_end: end });
    expect(paid.access_until).toEqual(t('2026-03-14T10:00:00.000Z'));
  });
});

describe('renewal', () => {
  it('claimRenewal: not before next_payment_date; then due with the charge in flight', () => {
    expect(() => claimRenewal(active(), t('2026-02-28T09:59:59.999Z'))).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        message: 'Subscription is active; cannot renew before next_payment_date',
      }),
    );
    expect(dueClaimed()).toMatchObject({
      status: 'due',
      payment_status: 'pending',
      pending_period: { index: 1, start: FEB_28, end: MAR_31 },
      next_payment_date: FEB_28,
    });
  });

  it('renewalSucceeded: next anchored period becomes current, dunning reset', () => {
    const failedOnce = claimRetry(dueWaiting(), plus(FEB_28, 1));
    const renewed = renewalSucceeded(failedOnce, { paidAt: plus(FEB_28, 1) });
    expect(renewed).toMatchObject({
      status: 'active',
      payment_status: 'paid',
      current_period: { index: 1, start: FEB_28, end: MAR_31 },
      pending_period: null,
      next_payment_date: MAR_31,
      access_until: MAR_31,
      failed_attempts: 0,
      first_failure_at: null,
      next_retry_at: null,
      decline_reason: null,
      attempts_left: 4,
    });
    // Paying late in dunning does not move the anchor: the next period still ends on Apr 30.
    const again = renewalSucceeded(claimRenewal(renewed, MAR_31), { paidAt: MAR_31 });
    expect(again.current_period).toEqual({ index: 2, start: MAR_31, end: APR_30 });
  });

  it('a late worker catches up one period at a time, never skipping one', () => {
    let s = active();
    for (const end of [MAR_31, APR_30]) {
      s = renewalSucceeded(claimRenewal(s, LATE), { paidAt: LATE });
      expect(s.current_period!.end).toEqual(end);
    }
  });

  it('a duplicate outcome is refused: nothing is in flight any more', () => {
    const renewed = renewalSucceeded(dueClaimed(), { paidAt: FEB_28 });
    expect(() => renewalSucceeded(renewed, { paidAt: FEB_28 })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(() => renewalFailed(dueWaiting(), { failedAt: FEB_28 })).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        message: 'Subscription is due; cannot record a renewal failure without a charge in flight',
      }),
    );
  });
});

describe('dunning', () => {
  it('soft declines retry at +1d, +3d, +5d from the first failure, then pause', () => {
    const failedAt = t('2026-02-28T10:00:07.000Z');
    let s = renewalFailed(dueClaimed(), { failedAt, declineCode: 'insufficient_funds' });
    expect(s).toMatchObject({
      status: 'due',
      payment_status: 'failed',
      failed_attempts: 1,
      first_failure_at: failedAt,
      next_retry_at: plus(failedAt, 1),
      next_payment_date: plus(failedAt, 1),
      decline_reason: 'insufficient_funds',
      attempts_left: 3,
    });
    expect(hasAccess(s, plus(failedAt, 1))).toBe(false);

    expect(() => claimRetry(s, plus(failedAt, 0.5))).toThrow(
      expect.objectContaining({ message: 'Subscription is due; cannot retry before next_retry_at' }),
    );
    for (const [attempt, days] of [
      [2, 3],
      [3, 5],
    ] as const) {
      // Each retry runs (and fails) six hours late: the schedule does not drift.
      const at = plus(s.next_retry_at!, 0.25);
      const claimed = claimRetry(s, at);
      expect(claimed).toMatchObject({ payment_status: 'pending', next_retry_at: null });
      expect(() => claimRetry(claimed, LATE)).toThrow(
        expect.objectContaining({ message: 'Subscription is due; cannot retry while a charge is in flight' }),
      );
      s = renewalFailed(claimed, { failedAt: at, declineCode: 'do_not_honor' });
      expect(s).toMatchObject({ status: 'due', failed_attempts: attempt, first_failure_at: failedAt });
      expect(s.next_retry_at).toEqual(plus(failedAt, days));
      expect(s.attempts_left).toBe(4 - attempt);
    }

    const lastFailure = plus(failedAt, 5.1);
    const paused = renewalFailed(claimRetry(s, plus(failedAt, 5)), {
      failedAt: lastFailure,
      declineCode: 'do_not_honor',
    });
    expect(paused).toMatchObject({
      status: 'paused',
      payment_status: 'failed',
      pause_reason: 'retries_exhausted',
      paused_at: lastFailure,
      failed_attempts: 4,
      attempts_left: 0,
      next_retry_at: null,
      next_payment_date: null,
      pending_period: null,
      access_until: FEB_28,
    });
  });

  it('a hard decline pauses at once', () => {
    expect(pausedByDunning()).toMatchObject({
      status: 'paused',
      payment_status: 'failed',
      pause_reason: 'hard_decline',
      decline_reason: 'expired_card',
      failed_attempts: 1,
      attempts_left: 0,
    });
  });
});

describe('pause and resume', () => {
  it('pause (merchant) stops charging but keeps paid access', () => {
    const s = pausedByMerchant();
    expect(s).toMatchObject({
      status: 'paused',
      pause_reason: 'merchant',
      paused_at: t('2026-02-10T00:00:00.000Z'),
      payment_status: 'paid',
      next_payment_date: null,
      access_until: FEB_28,
    });
    expect(hasAccess(s, t('2026-02-20T00:00:00.000Z'))).toBe(true);
  });

  it('pause from due (waiting for a retry) stops dunning', () => {
    expect(pause(dueWaiting(), plus(FEB_28, 0.5))).toMatchObject({
      status: 'paused',
      next_retry_at: null,
      pending_period: null,
      next_payment_date: null,
    });
  });

  it('pause is refused while a charge is in flight', () => {
    expect(() => pause(dueClaimed(), FEB_28)).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        message: 'Subscription is due; cannot pause while a charge is in flight',
      }),
    );
  });

  it('resume within the paid period → active, renewing on the same date', () => {
    expect(resume(pausedByMerchant(), t('2026-02-20T00:00:00.000Z'))).toMatchObject({
      status: 'active',
      paused_at: null,
      pause_reason: null,
      next_payment_date: FEB_28,
      access_until: FEB_28,
      current_period: { index: 0 },
    });
  });

  it('resume after the paid period → due, immediate retry, fresh dunning, re-anchored at now', () => {
    const now = t('2026-05-17T08:00:00.000Z');
    const s = resume(pausedByDunning(), now);
    expect(s).toMatchObject({
      status: 'due',
      payment_status: 'failed',
      billing_anchor: now,
      pending_period: { index: 0, start: now, end: t('2026-06-17T08:00:00.000Z') },
      next_retry_at: now,
      next_payment_date: now,
      failed_attempts: 0,
      first_failure_at: null,
      attempts_left: 4,
      decline_reason: null,
    });
    const renewed = renewalSucceeded(claimRetry(s, now), { paidAt: now });
    expect(renewed).toMatchObject({ status: 'active', access_until: t('2026-06-17T08:00:00.000Z') });
    expect(claimRenewal(renewed, t('2026-06-17T08:00:00.000Z')).pending_period!.index).toBe(1);
  });

  it('resume of a subscription set to cancel at period end, once that end passed → cancelled at that end', () => {
    const paused = pause(endingAtPeriodEnd(), t('2026-02-11T00:00:00.000Z'));
    expect(resume(paused, t('2026-02-12T00:00:00.000Z'))).toMatchObject({ status: 'active', next_payment_date: null });
    expect(resume(paused, LATE)).toMatchObject({ status: 'cancelled', cancelled_at: FEB_28 });
  });
});

describe('cancel', () => {
  const now = t('2026-02-10T00:00:00.000Z');

  it('active → cancelled now (spec 4.6); paid access ends now', () => {
    const result = cancel(active(), { now });
    expect(result).toMatchObject({ changed: true, alreadyCancelled: false });
    expect(result.state).toMatchObject({
      status: 'cancelled',
      cancelled_at: now,
      next_payment_date: null,
      access_until: now,
      payment_status: 'paid',
    });
    expect(hasAccess(result.state, now)).toBe(false);
  });

  it('active with atPeriodEnd → stays active, no further charge, cancelled by periodEnded at the period end', () => {
    const result = cancel(active(), { now, atPeriodEnd: true });
    expect(result).toMatchObject({ changed: true, alreadyCancelled: false });
    expect(result.state).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: FEB_28,
      next_payment_date: null,
      access_until: FEB_28,
      cancelled_at: null,
    });
    expect(hasAccess(result.state, t('2026-02-27T00:00:00.000Z'))).toBe(true);
    expect(() => claimRenewal(result.state, FEB_28)).toThrow(
      expect.objectContaining({ message: 'Subscription is active; cannot renew: it is set to cancel at period end' }),
    );
    expect(() => periodEnded(result.state, t('2026-02-28T09:59:59.999Z'))).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    expect(periodEnded(result.state, t('2026-02-28T10:05:00.000Z'))).toMatchObject({
      status: 'cancelled',
      cancelled_at: FEB_28,
      access_until: FEB_28,
    });
  });

  it('atPeriodEnd twice is a no-op; an immediate cancel afterwards cancels now', () => {
    const once = cancel(active(), { now, atPeriodEnd: true }).state;
    const twice = cancel(once, { now: plus(now, 1), atPeriodEnd: true });
    expect(twice).toEqual({ state: once, changed: false, alreadyCancelled: false });
    expect(cancel(once, { now: plus(now, 1) }).state).toMatchObject({
      status: 'cancelled',
      cancelled_at: plus(now, 1),
      cancel_at_period_end: false,
      cancel_at: null,
    });
  });

  it('atPeriodEnd when the paid period has already run out (worker not there yet) cancels now', () => {
    expect(cancel(active(), { now: plus(FEB_28, 0.1), atPeriodEnd: true }).state).toMatchObject({
      status: 'cancelled',
      cancelled_at: plus(FEB_28, 0.1),
      access_until: FEB_28,
    });
  });

  it.each([
    ['pending', pending],
    ['due (waiting for a retry)', dueWaiting],
    ['due (charge in flight)', dueClaimed],
    ['paused', pausedByMerchant],
    ['trialing, after the trial ran out', trialing],
  ])('%s → cancelled now, also with atPeriodEnd (nothing paid is running)', (_name, fixture) => {
    const at = plus(FEB_28, 0.5);
    for (const atPeriodEnd of [false, true]) {
      const before = fixture();
      const { state, changed, alreadyCancelled } = cancel(before, { now: at, atPeriodEnd });
      expect({ changed, alreadyCancelled }).toEqual({ changed: true, alreadyCancelled: false });
      expect(state).toMatchObject({
        status: 'cancelled',
        cancelled_at: at,
        next_retry_at: null,
        next_payment_date: null,
      });
      expect(state.pending_period).toBeNull();
    }
  });

  it('a trial cancelled at period end runs to the trial end', () => {
    expect(cancel(trialing(), { now, atPeriodEnd: true }).state).toMatchObject({
      status: 'active',
      cancel_at: t('2026-02-14T10:00:00.000Z'),
    });
  });

  it('cancelled → idempotent: same state, original cancelled_at, alreadyCancelled', () => {
    const first = cancelled();
    const again = cancel(first, { now: LATE, atPeriodEnd: true });
    expect(again.state).toBe(first);
    expect(again).toMatchObject({ changed: false, alreadyCancelled: true });
    expect(again.state.cancelled_at).toEqual(t('2026-02-10T00:00:00.000Z'));
  });

  it('a charge outcome arriving after cancel is not a renewal: it is recorded as a late outcome', () => {
    const claimed = dueClaimed();
    const c = cancel(claimed, { now: FEB_28 }).state;
    expect(() => renewalSucceeded(c, { paidAt: FEB_28 })).toThrow(
      expect.objectContaining({ message: 'Subscription is cancelled; cannot record a renewal payment' }),
    );
    const late = lateOutcomeRecorded(c, { at: FEB_28, period: claimed.pending_period!, succeeded: true });
    expect(late).toMatchObject({
      status: 'cancelled',
      cancelled_at: FEB_28,
      payment_status: 'paid',
      current_period: claimed.pending_period,
      access_until: MAR_31,
      next_payment_date: null,
    });
    const failed = lateOutcomeRecorded(c, {
      at: FEB_28,
      period: claimed.pending_period!,
      succeeded: false,
      declineCode: 'card_declined',
    });
    expect(failed).toMatchObject({ status: 'cancelled', payment_status: 'failed', decline_reason: 'card_declined' });
    expect(() =>
      lateOutcomeRecorded(active(), { at: FEB_28, period: claimed.pending_period!, succeeded: true }),
    ).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });
});

describe('periodEnded', () => {
  it('refuses a subscription that is not set to cancel at period end', () => {
    expect(() => periodEnded(active(), LATE)).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        message: 'Subscription is active; cannot end its period: it is not set to cancel at period end',
      }),
    );
  });

  it('also ends a paused subscription set to cancel at period end', () => {
    const paused = pause(endingAtPeriodEnd(), t('2026-02-11T00:00:00.000Z'));
    expect(periodEnded(paused, FEB_28)).toMatchObject({ status: 'cancelled', cancelled_at: FEB_28 });
  });
});
