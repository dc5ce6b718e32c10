import { SUBSCRIPTION_FREQUENCIES } from '@ppay/kernel';
import { period, periodContaining, periodStart, type Frequency } from './calendar';
import { MONTHLY_FROM_JAN_31_2026 } from './month-ends.test-util';

const utc = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();
const starts = (anchor: string, frequency: Frequency, count: number) =>
  Array.from({ length: count }, (_, n) => iso(periodStart(utc(anchor), frequency, n)));

describe('periodStart: each frequency', () => {
  const anchor = '2026-01-15T09:30:00.000Z';

  it.each<[Frequency, string[]]>([
    [
      'weekly',
      ['2026-01-15T09:30:00.000Z', '2026-01-22T09:30:00.000Z', '2026-01-29T09:30:00.000Z', '2026-02-05T09:30:00.000Z'],
    ],
    [
      'monthly',
      ['2026-01-15T09:30:00.000Z', '2026-02-15T09:30:00.000Z', '2026-03-15T09:30:00.000Z', '2026-04-15T09:30:00.000Z'],
    ],
    [
      'quarterly',
      ['2026-01-15T09:30:00.000Z', '2026-04-15T09:30:00.000Z', '2026-07-15T09:30:00.000Z', '2026-10-15T09:30:00.000Z'],
    ],
    [
      'biannually',
      ['2026-01-15T09:30:00.000Z', '2026-07-15T09:30:00.000Z', '2027-01-15T09:30:00.000Z', '2027-07-15T09:30:00.000Z'],
    ],
    [
      'yearly',
      ['2026-01-15T09:30:00.000Z', '2027-01-15T09:30:00.000Z', '2028-01-15T09:30:00.000Z', '2029-01-15T09:30:00.000Z'],
    ],
  ])('%s', (frequency, expected) => {
    expect(starts(anchor, frequency, 4)).toEqual(expected);
  });

  it('weekly is exactly 7 × 24 h, also across a leap day and a year end', () => {
    expect(starts('2028-02-26T00:00:00.000Z', 'weekly', 2)).toEqual([
      '2028-02-26T00:00:00.000Z',
      '2028-03-04T00:00:00.000Z',
    ]);
    expect(iso(periodStart(utc('2026-12-29T23:59:59.999Z'), 'weekly', 1))).toBe('2027-01-05T23:59:59.999Z');
  });

  it('rejects negative or fractional indexes and invalid anchors (caller bugs)', () => {
    expect(() => periodStart(utc(anchor), 'monthly', -1)).toThrow(RangeError);
    expect(() => periodStart(utc(anchor), 'monthly', 1.5)).toThrow(RangeError);
    expect(() => periodStart(new Date('nope'), 'monthly', 0)).toThrow(RangeError);
  });
});

describe('month-end anchoring', () => {
  it('Jan 31 monthly through a common year: clamps short months, returns to the 31st', () => {
    expect(starts('2026-01-31T12:00:00.000Z', 'monthly', 13).map((s) => s.slice(0, 10))).toEqual(
      MONTHLY_FROM_JAN_31_2026,
    );
  });

  it('Jan 31 monthly in a leap year lands on Feb 29', () => {
    expect(starts('2028-01-31T00:00:00.000Z', 'monthly', 3).map((s) => s.slice(0, 10))).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
    ]);
  });

  it.each<[string, string[]]>([
    ['2027-01-29', ['2027-02-28', '2027-03-29', '2027-04-29']],
    ['2027-01-30', ['2027-02-28', '2027-03-30', '2027-04-30']],
    ['2028-01-29', ['2028-02-29', '2028-03-29', '2028-04-29']],
    ['2028-01-30', ['2028-02-29', '2028-03-30', '2028-04-30']],
  ])('anchor %s → %p', (anchor, expected) => {
    expect(
      starts(`${anchor}T00:00:00.000Z`, 'monthly', 4)
        .slice(1)
        .map((s) => s.slice(0, 10)),
    ).toEqual(expected);
  });

  it('anchors on the 29th/30th/31st keep their day in every month that has it, for a full year', () => {
    for (const day of [29, 30, 31]) {
      const anchor = utc(`2027-01-${day}T06:00:00.000Z`);
      for (let n = 0; n <= 12; n++) {
        const start = periodStart(anchor, 'monthly', n);
        const lastDay = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0)).getUTCDate();
        expect(start.getUTCDate()).toBe(Math.min(day, lastDay));
        expect(start.getUTCMonth()).toBe(n % 12);
      }
    }
  });

  it('yearly Feb 29 2028 → Feb 28 until the next leap year → Feb 29 2032', () => {
    expect(starts('2028-02-29T08:00:00.000Z', 'yearly', 5)).toEqual([
      '2028-02-29T08:00:00.000Z',
      '2029-02-28T08:00:00.000Z',
      '2030-02-28T08:00:00.000Z',
      '2031-02-28T08:00:00.000Z',
      '2032-02-29T08:00:00.000Z',
    ]);
  });

  it('2100 is not a leap year (divisible by 100, not by 400); 2400 is', () => {
    expect(iso(periodStart(utc('2096-02-29T00:00:00.000Z'), 'yearly', 4))).toBe('2100-02-28T00:00:00.000Z');
    expect(iso(periodStart(utc('2100-01-31T00:00:00.000Z'), 'monthly', 1))).toBe('2100-02-28T00:00:00.000Z');
    expect(iso(periodStart(utc('2396-02-29T00:00:00.000Z'), 'yearly', 4))).toBe('2400-02-29T00:00:00.000Z');
  });

  it('quarterly and biannually from Aug 31 clamp to Nov 30 / Feb 28 and return to the 31st', () => {
    expect(starts('2026-08-31T00:00:00.000Z', 'quarterly', 5).map((s) => s.slice(0, 10))).toEqual([
      '2026-08-31',
      '2026-11-30',
      '2027-02-28',
      '2027-05-31',
      '2027-08-31',
    ]);
    expect(starts('2027-08-31T00:00:00.000Z', 'biannually', 3).map((s) => s.slice(0, 10))).toEqual([
      '2027-08-31',
      '2028-02-29',
      '2028-08-31',
    ]);
  });
});

describe('time of day (UTC, no DST)', () => {
  it.each(SUBSCRIPTION_FREQUENCIES)('%s keeps the anchor time across European and US DST changes', (frequency) => {
    const anchor = utc('2026-03-07T23:45:12.345Z');
    for (let n = 0; n <= 60; n++) {
      const start = periodStart(anchor, frequency, n);
      expect(start.toISOString().slice(10)).toBe('T23:45:12.345Z');
    }
  });
});

describe('period and periodContaining', () => {
  it('end is the next start (exclusive)', () => {
    const p = period(utc('2026-01-31T00:00:00.000Z'), 'monthly', 1);
    expect(p).toEqual({ index: 1, start: utc('2026-02-28T00:00:00.000Z'), end: utc('2026-03-31T00:00:00.000Z') });
  });

  it('finds the containing period at and around boundaries', () => {
    const anchor = utc('2026-01-31T10:00:00.000Z');
    expect(periodContaining(anchor, 'monthly', anchor).index).toBe(0);
    expect(periodContaining(anchor, 'monthly', utc('2026-02-28T09:59:59.999Z')).index).toBe(0);
    expect(periodContaining(anchor, 'monthly', utc('2026-02-28T10:00:00.000Z')).index).toBe(1);
    expect(periodContaining(anchor, 'monthly', utc('2026-03-31T09:00:00.000Z')).index).toBe(1);
    expect(periodContaining(anchor, 'monthly', utc('2026-03-31T10:00:00.000Z')).index).toBe(2);
    expect(periodContaining(anchor, 'weekly', utc('2026-02-07T09:59:59.999Z')).index).toBe(0);
    expect(periodContaining(anchor, 'weekly', utc('2026-02-07T10:00:00.000Z')).index).toBe(1);
    expect(periodContaining(anchor, 'yearly', utc('2036-01-31T10:00:00.000Z')).index).toBe(10);
  });

  it('refuses an instant before the anchor', () => {
    const anchor = utc('2026-01-31T10:00:00.000Z');
    expect(() => periodContaining(anchor, 'monthly', utc('2026-01-31T09:59:59.999Z'))).toThrow(RangeError);
  });

  const anchors = [
    '2028-01-31T13:14:15.016Z',
    '2027-01-29T00:00:00.000Z',
    '2028-02-29T23:59:59.999Z',
    '2026-12-31T00:00:00.000Z',
    '2099-03-30T05:00:00.000Z',
  ];

  it.each(SUBSCRIPTION_FREQUENCIES)('%s: periods 0..120 are monotonic with no gaps or overlaps', (frequency) => {
    for (const a of anchors) {
      const anchor = utc(a);
      let previous = period(anchor, frequency, 0);
      expect(previous.start).toEqual(anchor);
      for (let n = 1; n <= 120; n++) {
        const current = period(anchor, frequency, n);
        expect(current.start.getTime()).toBe(previous.end.getTime());
        expect(current.end.getTime()).toBeGreaterThan(current.start.getTime());
        // The instants just inside each boundary belong to exactly the expected period.
        expect(periodContaining(anchor, frequency, current.start).index).toBe(n);
        expect(periodContaining(anchor, frequency, new Date(current.start.getTime() - 1)).index).toBe(n - 1);
        expect(periodContaining(anchor, frequency, new Date(current.end.getTime() - 1)).index).toBe(n);
        previous = current;
      }
    }
  });
});
