import {
  attemptsLeft,
  decideAfterFailure,
  DUNNING_SCHEDULE_DAYS,
  HARD_DECLINE_CODES,
  isHardDecline,
  MAX_ATTEMPTS_PER_PERIOD,
  nextRetryAt,
} from './dunning';

const firstFailure = new Date('2026-01-31T10:15:00.000Z');

describe('schedule', () => {
  it('is +1d, +3d, +5d from the first failure: four attempts per period', () => {
    expect(DUNNING_SCHEDULE_DAYS).toEqual([1, 3, 5]);
    expect(MAX_ATTEMPTS_PER_PERIOD).toBe(4);
  });

  it.each([
    [1, '2026-02-01T10:15:00.000Z'],
    [2, '2026-02-03T10:15:00.000Z'],
    [3, '2026-02-05T10:15:00.000Z'],
  ])('after %i failure(s) the next attempt is at %s', (failed, at) => {
    expect(nextRetryAt(firstFailure, failed)).toEqual(new Date(at));
  });

  it('offsets are from the first failure, not from the previous retry', () => {
    // Retry 1 ran late and failed a day after it was due; retry 2 still lands on first failure + 3 days.
    expect(nextRetryAt(firstFailure, 2)!.getTime() - firstFailure.getTime()).toBe(3 * 86_400_000);
  });

  it('is exhausted after the fourth failure', () => {
    expect(nextRetryAt(firstFailure, 4)).toBeNull();
    expect(nextRetryAt(firstFailure, 9)).toBeNull();
  });

  it.each([0, -1, 1.5, Number.NaN])('nextRetryAt refuses failedAttempts %p', (n) => {
    expect(() => nextRetryAt(firstFailure, n)).toThrow(RangeError);
  });

  it('nextRetryAt refuses an invalid date', () => {
    expect(() => nextRetryAt(new Date('x'), 1)).toThrow(RangeError);
  });

  it.each([
    [0, 4],
    [1, 3],
    [2, 2],
    [3, 1],
    [4, 0],
    [7, 0],
  ])('attemptsLeft(%i) = %i', (failed, left) => {
    expect(attemptsLeft(failed)).toBe(left);
  });

  it('attemptsLeft refuses negatives', () => {
    expect(() => attemptsLeft(-1)).toThrow(RangeError);
  });
});

describe('isHardDecline', () => {
  it.each(['expired_card', 'stolen_card', 'lost_card', 'card_not_supported', ' Lost_Card ', 'fraudulent'])(
    '%p is hard',
    (code) => {
      expect(isHardDecline(code)).toBe(true);
    },
  );

  // authentication_required: a live card's off-session renewal the issuer wants its holder to authenticate.
  it.each([
    'insufficient_funds',
    'do_not_honor',
    'generic_decline',
    'processing_error',
    'authentication_required',
    '',
    null,
    undefined,
  ])('%p is soft', (code) => {
    expect(isHardDecline(code)).toBe(false);
  });

  it('the list is lower-case so normalised lookups can hit', () => {
    for (const code of HARD_DECLINE_CODES) expect(code).toBe(code.toLowerCase());
  });
});

describe('decideAfterFailure', () => {
  it('retries soft declines on the schedule', () => {
    expect(
      decideAfterFailure({ firstFailureAt: firstFailure, failedAttempts: 1, declineCode: 'insufficient_funds' }),
    ).toEqual({ action: 'retry', at: new Date('2026-02-01T10:15:00.000Z'), attemptsLeft: 3 });
    expect(decideAfterFailure({ firstFailureAt: firstFailure, failedAttempts: 3 })).toEqual({
      action: 'retry',
      at: new Date('2026-02-05T10:15:00.000Z'),
      attemptsLeft: 1,
    });
  });

  it('pauses when the schedule is exhausted', () => {
    expect(
      decideAfterFailure({ firstFailureAt: firstFailure, failedAttempts: 4, declineCode: 'do_not_honor' }),
    ).toEqual({ action: 'pause', cause: 'retries_exhausted', attemptsLeft: 0 });
  });

  it('pauses at once on a hard decline, whatever attempt it was', () => {
    for (const failedAttempts of [1, 2, 3, 4]) {
      expect(decideAfterFailure({ firstFailureAt: firstFailure, failedAttempts, declineCode: 'expired_card' })).toEqual(
        { action: 'pause', cause: 'hard_decline', attemptsLeft: 0 },
      );
    }
  });
});
