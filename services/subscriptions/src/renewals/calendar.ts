import {
  checkDate,
  frequencyStep,
  isDayFrequency,
  periodStart,
  DAY_MS,
  type SubscriptionFrequency,
} from '@ppay/kernel';

/**
 * Billing calendar: which instants the periods of anything billed on a frequency (a subscription) start
 * and end at. The anchored arithmetic itself is the kernel's (`periodStart`), shared with installment plans.
 *
 * Everything is UTC. Periods are anchored: period n starts at `anchor + n × interval`, computed from the
 * anchor every time rather than by adding an interval to the previous start. Adding months one step at a
 * time drifts (Jan 31 → Feb 28 → Mar 28 → …); computing from the anchor clamps only the months that are
 * too short and returns to the anchor day afterwards (Jan 31 → Feb 28 → Mar 31 → Apr 30). UTC removes the
 * double billing around DST changes and time zones that Lago's users reported.
 */

/**
 * The platform's one list of billing frequencies (the kernel's): spec 4.2 names monthly, yearly and
 * quarterly and calls the list incomplete (docs/decisions.md, Subscriptions 1).
 */
export type Frequency = SubscriptionFrequency;

export { checkDate, DAY_MS, periodStart } from '@ppay/kernel';

/** One billing period; `end` is exclusive and equals the next period's `start`. */
export interface Period {
  readonly index: number;
  readonly start: Date;
  readonly end: Date;
}

export function period(anchor: Date, frequency: Frequency, n: number): Period {
  return { index: n, start: periodStart(anchor, frequency, n), end: periodStart(anchor, frequency, n + 1) };
}

/** The period with start ≤ at < end. `at` before the anchor is a caller bug: nothing is billed before it. */
export function periodContaining(anchor: Date, frequency: Frequency, at: Date): Period {
  const anchorMs = checkDate(anchor, 'anchor');
  const atMs = checkDate(at, 'at');
  if (atMs < anchorMs) throw new RangeError('at must not be before the anchor');
  const step = frequencyStep(frequency);
  let n: number;
  if (isDayFrequency(frequency)) {
    n = Math.floor((atMs - anchorMs) / (step * DAY_MS));
  } else {
    // Estimate from calendar months, then correct by at most a step either way (month-end clamping).
    const months = (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + at.getUTCMonth() - anchor.getUTCMonth();
    n = Math.max(0, Math.floor(months / step));
    while (n > 0 && periodStart(anchor, frequency, n).getTime() > atMs) n--;
    while (periodStart(anchor, frequency, n + 1).getTime() <= atMs) n++;
  }
  return period(anchor, frequency, n);
}
