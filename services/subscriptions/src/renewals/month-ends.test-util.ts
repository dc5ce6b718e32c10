/**
 * The days monthly periods anchored on Jan 31 2026 start on, for a year and a day: short months clamp,
 * then the 31st comes back (docs/decisions.md, Subscriptions 2). The calendar computes them; a year of
 * renewals charges them.
 */
export const MONTHLY_FROM_JAN_31_2026 = [
  '2026-01-31',
  '2026-02-28',
  '2026-03-31',
  '2026-04-30',
  '2026-05-31',
  '2026-06-30',
  '2026-07-31',
  '2026-08-31',
  '2026-09-30',
  '2026-10-31',
  '2026-11-30',
  '2026-12-31',
  '2027-01-31',
] as const;
