import type { PlatformError } from '@ppay/kernel';
import {
  activate,
  cancel,
  claimRenewal,
  claimRetry,
  hasAccess,
  pause,
  periodEnded,
  renewalFailed,
  renewalSucceeded,
  resume,
  startTrial,
  type SubscriptionState,
} from './lifecycle';
import {
  active,
  APR_30,
  cancelled,
  dueClaimed,
  dueWaiting,
  endingAtPeriodEnd,
  conflict,
  FEB_28,
  LATE,
  MAR_31,
  pausedByDunning,
  pausedByMerchant,
  pending,
  plus,
  t,
  T0,
  trialing,
} from './lifecycle-fixtures.test-util';

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
      conflict('Subscription is active; cannot renew before next_payment_date'),
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
      conflict('Subscription is due; cannot record a renewal failure without a charge in flight'),
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
