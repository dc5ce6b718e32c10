import type { SubscriptionFrequency } from './subscriptions';

/**
 * The billing calendar's arithmetic, shared by everything billed on a schedule: subscriptions (their
 * renewals, services/subscriptions/src/renewals/calendar.ts) and installment plans, whose schedule the
 * hosted checkout page (payments) shows before the first payment and subscriptions then charges.
 *
 * Everything is UTC. Instants are anchored: instant n is `anchor + n × interval`, computed from the
 * anchor every time rather than by adding an interval to the previous one. Adding months one step at a
 * time drifts (Jan 31 → Feb 28 → Mar 28 → …); computing from the anchor clamps only the months that are
 * too short and returns to the anchor day afterwards (Jan 31 → Feb 28 → Mar 31 → Apr 30).
 */

type Interval = { unit: 'day'; count: number } | { unit: 'month'; count: number };

const INTERVALS: Readonly<Record<SubscriptionFrequency, Interval>> = {
  weekly: { unit: 'day', count: 7 },
  monthly: { unit: 'month', count: 1 },
  quarterly: { unit: 'month', count: 3 },
  biannually: { unit: 'month', count: 6 },
  yearly: { unit: 'month', count: 12 },
};

export const DAY_MS = 86_400_000;

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

/** Whether `frequency` counts whole days (weekly) rather than calendar months. */
export function isDayFrequency(frequency: SubscriptionFrequency): boolean {
  return INTERVALS[frequency].unit === 'day';
}

/** The length of a frequency's step: days for weekly, calendar months for the others. */
export function frequencyStep(frequency: SubscriptionFrequency): number {
  return INTERVALS[frequency].count;
}

/** Start of period `n` (0 = the anchor itself), keeping the anchor's UTC time of day. */
export function periodStart(anchor: Date, frequency: SubscriptionFrequency, n: number): Date {
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
