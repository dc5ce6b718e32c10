import { CURRENCY_EXPONENTS, minorUnitExponent, money, splitMoney } from '.';

/** One currency of each ISO 4217 exponent (0: JPY, KRW, VND; 2; 3; 4) and the platform's own. */
const CURRENCIES = ['JPY', 'KRW', 'VND', 'XAF', 'NGN', 'USD', 'KES', 'KWD', 'BHD', 'CLF'];
/** Totals that divide evenly, leave every remainder, are tiny, or sit at the edge of exact integers. */
const TOTALS = [0, 1, 11, 100, 999, 1_000, 10_007, 123_456_789, 9_999_999_999, Number.MAX_SAFE_INTEGER];

describe('splitMoney: parts that add up exactly, the remainder on the first', () => {
  it('covers every exponent', () => {
    expect(new Set(CURRENCIES.map(minorUnitExponent))).toEqual(new Set(CURRENCY_EXPONENTS.values()));
  });

  it.each(CURRENCIES)('%s: every count 2–12 and every total sums to the total', (currency) => {
    for (let count = 2; count <= 12; count++) {
      for (const amount of TOTALS) {
        const parts = splitMoney(money(amount, currency), count);
        expect(parts).toHaveLength(count);
        const sum = parts.reduce((s, p) => s + BigInt(p.amount), 0n);
        expect([count, amount, sum]).toEqual([count, amount, BigInt(amount)]);
        const [first, ...rest] = parts;
        const each = BigInt(amount) / BigInt(count);
        // Every later part is the floor; the first carries the remainder (less than one more part).
        for (const p of rest) expect([count, amount, BigInt(p.amount)]).toEqual([count, amount, each]);
        expect(BigInt(first!.amount) - each).toBe(BigInt(amount) % BigInt(count));
        expect(parts.every((p) => p.currency === currency && Number.isSafeInteger(p.amount))).toBe(true);
      }
    }
  });

  it('puts the remainder on the first part: ¥10,000 in 3 is 3,334 + 3,333 + 3,333', () => {
    expect(splitMoney(money(10_000, 'JPY'), 3).map((p) => p.amount)).toEqual([3_334, 3_333, 3_333]);
    // ₦100,000.01 in 12: the 5 kobo left over are paid first.
    expect(splitMoney(money(10_000_001, 'NGN'), 12).map((p) => p.amount)).toEqual([
      833_338,
      ...Array(11).fill(833_333),
    ]);
  });

  it('does not round a large quotient up (float division would)', () => {
    // (2^53 − 1) / 7: the exact floor, not the nearest double.
    const parts = splitMoney(money(Number.MAX_SAFE_INTEGER, 'USD'), 7);
    expect(BigInt(parts[1]!.amount)).toBe(BigInt(Number.MAX_SAFE_INTEGER) / 7n);
  });

  it('refuses what is not a split', () => {
    expect(() => splitMoney(money(100, 'USD'), 0)).toThrow(RangeError);
    expect(() => splitMoney(money(100, 'USD'), 2.5)).toThrow(RangeError);
    expect(() => splitMoney(money(-100, 'USD'), 2)).toThrow(RangeError);
  });
});
