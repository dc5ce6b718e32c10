import { nextActionAt } from './subscription';
import {
  cancel,
  chargeNeverMade,
  claimRenewal,
  claimRetry,
  hasAccess,
  lateOutcomeRecorded,
  pause,
  periodEnded,
  renewalSucceeded,
  resume,
} from './lifecycle';
import { conflict, FEB_28, LATE, MAR_31, plus, t } from './lifecycle-fixtures.test-util';
import {
  active,
  cancelled,
  dueClaimed,
  dueWaiting,
  endingAtPeriodEnd,
  pausedByDunning,
  pausedByMerchant,
  pending,
  trialing,
} from './lifecycle-fixtures.test-util';

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
      conflict('Subscription is due; cannot pause while a charge is in flight'),
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
      // A charge in flight may exist: its period (and so its key) is kept for the look-up that settles it.
      expect(state.pending_period).toEqual(before.payment_status === 'pending' ? before.pending_period : null);
      expect(state.payment_status).toBe(before.payment_status);
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
    expect(late!.pending_period).toBeNull();
    expect(failed!.pending_period).toBeNull();
    expect(() =>
      lateOutcomeRecorded(active(), { at: FEB_28, period: claimed.pending_period!, succeeded: true }),
    ).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it('a late outcome already recorded, or a decline no longer in flight, records nothing more', () => {
    const claimed = dueClaimed();
    const period = claimed.pending_period!;
    const paid = lateOutcomeRecorded(cancel(claimed, { now: FEB_28 }).state, { at: FEB_28, period, succeeded: true })!;
    expect(lateOutcomeRecorded(paid, { at: FEB_28, period, succeeded: true })).toBeNull();
    const neverMade = chargeNeverMade(cancel(claimed, { now: FEB_28 }).state);
    expect(lateOutcomeRecorded(neverMade, { at: FEB_28, period, succeeded: false })).toBeNull();
  });

  it('a payment landing after its charge was settled as never made is recorded', () => {
    const claimed = dueClaimed();
    const neverMade = chargeNeverMade(cancel(claimed, { now: FEB_28 }).state);
    const period = claimed.pending_period!;
    expect(lateOutcomeRecorded(neverMade, { at: FEB_28, period, succeeded: true })).toMatchObject({
      status: 'cancelled',
      payment_status: 'paid',
      current_period: period,
      pending_period: null,
      access_until: MAR_31,
    });
  });
});

describe('chargeNeverMade', () => {
  it('a cancelled renewal with no charge at payments: no longer in flight, payment_status as before the claim', () => {
    const inFlight = cancel(dueClaimed(), { now: FEB_28 }).state;
    expect(nextActionAt(inFlight)).toEqual(new Date(0)); // settled by the scheduler at once
    const renewal = chargeNeverMade(inFlight);
    expect(renewal).toMatchObject({ status: 'cancelled', payment_status: 'paid', pending_period: null });
    expect(nextActionAt(renewal)).toBeNull();
    const retry = claimRetry(dueWaiting(), plus(FEB_28, 1));
    expect(chargeNeverMade(cancel(retry, { now: FEB_28 }).state)).toMatchObject({ payment_status: 'failed' });
    const firstAfterTrial = claimRenewal(trialing(), t('2026-02-14T10:00:00.000Z'));
    expect(chargeNeverMade(cancel(firstAfterTrial, { now: FEB_28 }).state)).toMatchObject({ payment_status: 'none' });
  });

  it('refuses a subscription that is not cancelled, or has nothing in flight', () => {
    expect(() => chargeNeverMade(dueClaimed())).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(() => chargeNeverMade(cancelled())).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });
});

describe('periodEnded', () => {
  it('refuses a subscription that is not set to cancel at period end', () => {
    expect(() => periodEnded(active(), LATE)).toThrow(
      conflict('Subscription is active; cannot end its period: it is not set to cancel at period end'),
    );
  });

  it('also ends a paused subscription set to cancel at period end', () => {
    const paused = pause(endingAtPeriodEnd(), t('2026-02-11T00:00:00.000Z'));
    expect(periodEnded(paused, FEB_28)).toMatchObject({ status: 'cancelled', cancelled_at: FEB_28 });
  });
});
