import type { SubscriptionFrequency } from '@ppay/kernel';

/**
 * Billing calendar: which instants the periods of anything billed on a frequency (a subscription) start
 * and end at.
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

type Interval = { unit: 'day'; count: number } | { unit: 'month'; count: number };

const INTERVALS: Readonly<Record<Frequency, Interval>> = {
  weekly: { unit: 'day', count: 7 },
  monthly: { unit: 'month', count: 1 },
  quarterly: { unit: 'month', count: 3 },
  biannually: { unit: 'month', count: 6 },
  yearly: { unit: 'month', count: 12 },
};

export const DAY_MS = 86_400_000;

/** One billing period; `end` is exclusive and equals the next period's `start`. */
export interface Period {
  readonly index: number;
  readonly start: Date;
  readonly end: Date;
}

/** The instant of a Date in ms; a RangeError naming it when it is not a valid Date (a caller bug). */
export function checkDate(value: Date, name: string): number {
  const ms = value instanceof Date ? value.getTime() : Number.NaN;
  if (Number.isNaN(ms)) throw new RangeError(`${name} must be a valid Date`);
  return ms;
}

function checkIndex(n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Period index must be a non-negative integer, got ${n}`);
}

function daysInMonth(year: number, monthIndex: number): number {
  // Day 0 of the following month is the last day of this one.
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** Start of period `n` (0 = the anchor itself), keeping the anchor's UTC time of day. */
export function periodStart(anchor: Date, frequency: Frequency, n: number): Date {
  const anchorMs = checkDate(anchor, 'anchor');
  checkIndex(n);
  const interval = INTERVALS[frequency];
  if (interval.unit === 'day') return new Date(anchorMs + n * interval.count * DAY_MS);

  const months = anchor.getUTCMonth() + n * interval.count;
  const year = anchor.getUTCFullYear() + Math.floor(months / 12);
  const month = months % 12;
  // Clamp to the month's last day when the anchor day does not exist in it (31st in April, 29 Feb).
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  const start = new Date(0);
  start.setUTCFullYear(year, month, day);
  start.setUTCHours(anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds());
  return start;
}

export function period(anchor: Date, frequency: Frequency, n: number): Period {
  return { index: n, start: periodStart(anchor, frequency, n), end: periodStart(anchor, frequency, n + 1) };
}

/** The period with start ≤ at < end. `at` before the anchor is a caller bug: nothing is billed before it. */
export function periodContaining(anchor: Date, frequency: Frequency, at: Date): Period {
  const anchorMs = checkDate(anchor, 'anchor');
  const atMs = checkDate(at, 'at');
  if (atMs < anchorMs) throw new RangeError('at must not be before the anchor');
  const interval = INTERVALS[frequency];
  let n: number;
  if (interval.unit === 'day') {
    n = Math.floor((atMs - anchorMs) / (interval.count * DAY_MS));
  } else {
    // Estimate from calendar months, then correct by at most a step either way (month-end clamping).
    const months = (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + at.getUTCMonth() - anchor.getUTCMonth();
    n = Math.max(0, Math.floor(months / interval.count));
    while (n > 0 && periodStart(anchor, frequency, n).getTime() > atMs) n--;
    while (periodStart(anchor, frequency, n + 1).getTime() <= atMs) n++;
  }
  return period(anchor, frequency, n);
}
