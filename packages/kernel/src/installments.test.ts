import { installmentSchedule, installmentTerms, money } from '.';

const dates = (s: { due_at: Date }[]) => s.map((p) => p.due_at.toISOString());

describe('installment schedule', () => {
  it('monthly from Jan 31: month ends clamp and the 31st comes back, the time of day is kept', () => {
    const s = installmentSchedule(
      money(1_200_00, 'USD'),
      { count: 4, interval: 'monthly' },
      new Date('2026-01-31T10:15:00Z'),
    );
    expect(dates(s)).toEqual([
      '2026-01-31T10:15:00.000Z',
      '2026-02-28T10:15:00.000Z',
      '2026-03-31T10:15:00.000Z',
      '2026-04-30T10:15:00.000Z',
    ]);
    expect(s.map((p) => [p.number, p.amount.amount])).toEqual([
      [1, 30_000],
      [2, 30_000],
      [3, 30_000],
      [4, 30_000],
    ]);
  });

  it('monthly across a leap February and a year end', () => {
    const s = installmentSchedule(
      money(10_000, 'JPY'),
      { count: 3, interval: 'monthly' },
      new Date('2027-12-30T00:00:00Z'),
    );
    expect(dates(s)).toEqual(['2027-12-30T00:00:00.000Z', '2028-01-30T00:00:00.000Z', '2028-02-29T00:00:00.000Z']);
    expect(s.map((p) => p.amount)).toEqual([
      { amount: 3_334, currency: 'JPY' },
      { amount: 3_333, currency: 'JPY' },
      { amount: 3_333, currency: 'JPY' },
    ]);
  });

  it('weekly is exactly 7 × 24 h apart, whatever the month', () => {
    const s = installmentSchedule(
      money(700, 'KRW'),
      { count: 12, interval: 'weekly' },
      new Date('2026-02-26T23:00:00Z'),
    );
    expect(s).toHaveLength(12);
    for (let i = 1; i < s.length; i++) expect(s[i]!.due_at.getTime() - s[i - 1]!.due_at.getTime()).toBe(7 * 86_400_000);
    expect(s.reduce((n, p) => n + p.amount.amount, 0)).toBe(700);
  });

  it.each([
    [{ count: 1, interval: 'monthly' }, 'installments.count'],
    [{ count: 13, interval: 'monthly' }, 'installments.count'],
    [{ count: 2.5, interval: 'monthly' }, 'installments.count'],
    [{ count: '3', interval: 'monthly' }, 'installments.count'],
    [{ interval: 'monthly' }, 'installments.count'],
    [{ count: 3, interval: 'yearly' }, 'installments.interval'],
    [{ count: 3 }, 'installments.interval'],
  ])('terms %j → 400 naming %s', (raw, param) => {
    expect(() => installmentTerms(raw)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', param }));
  });

  it('accepts 2–12 weekly or monthly', () => {
    expect(installmentTerms({ count: 2, interval: 'weekly' })).toEqual({ count: 2, interval: 'weekly' });
    expect(installmentTerms({ count: 12, interval: 'monthly' })).toEqual({ count: 12, interval: 'monthly' });
  });
});
