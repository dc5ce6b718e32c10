import {
  addMoney,
  convertMoney,
  formatMoney,
  fractionOf,
  isWholeUnitCurrency,
  minorUnitExponent,
  money,
  normaliseCurrency,
  subtractMoney,
  toMajorUnitString,
  toMajorUnits,
  type MajorUnits,
  type Money,
  withinTolerance,
} from '.';

describe('ISO 4217 minor units', () => {
  it.each([
    ['JPY', 0],
    ['KRW', 0],
    ['VND', 0],
    ['XAF', 0],
    ['NGN', 2],
    ['USD', 2],
    ['GHS', 2],
    ['KWD', 3],
    ['BHD', 3],
    ['CLF', 4],
  ])('%s has exponent %i', (code, exponent) => {
    expect(minorUnitExponent(code)).toBe(exponent);
  });

  it('whole-unit currencies are exactly the exponent-0 ones', () => {
    expect(['JPY', 'KRW', 'VND'].every(isWholeUnitCurrency)).toBe(true);
    expect(isWholeUnitCurrency('EUR')).toBe(false);
  });

  it('normalises case and rejects unknown codes', () => {
    expect(normaliseCurrency(' ngn ')).toBe('NGN');
    expect(normaliseCurrency('XYZ')).toBeUndefined();
    expect(normaliseCurrency(42)).toBeUndefined();
    expect(() => minorUnitExponent('XYZ')).toThrow(RangeError);
  });
});

describe('Money values', () => {
  it('accepts only safe integers of a known currency', () => {
    expect(money(1050, 'usd')).toEqual({ amount: 1050, currency: 'USD' });
    expect(() => money(10.5, 'USD')).toThrow(/integer/);
    expect(() => money(Number.MAX_SAFE_INTEGER + 1, 'USD')).toThrow();
    expect(() => money(1, 'ABC')).toThrow(/Unknown currency/);
  });

  it('adds and subtracts within one currency only', () => {
    expect(addMoney(money(1, 'NGN'), money(2, 'NGN'))).toEqual(money(3, 'NGN'));
    expect(subtractMoney(money(1, 'NGN'), money(2, 'NGN'))).toEqual(money(-1, 'NGN'));
    expect(() => addMoney(money(1, 'NGN'), money(1, 'GHS'))).toThrow(/Currency mismatch/);
    expect(() => addMoney(money(Number.MAX_SAFE_INTEGER, 'NGN'), money(1, 'NGN'))).toThrow(/range/);
  });

  it('takes fractions (fees, commission) rounding half up to the minor unit', () => {
    expect(fractionOf(money(10_000, 'NGN'), '0.015')).toEqual(money(150, 'NGN'));
    expect(fractionOf(money(333, 'NGN'), '0.015')).toEqual(money(5, 'NGN')); // 4.995 → 5
    expect(fractionOf(money(300, 'NGN'), '0.015')).toEqual(money(5, 'NGN')); // 4.5 → 5
    expect(fractionOf(money(299, 'NGN'), '0.015')).toEqual(money(4, 'NGN')); // 4.485 → 4
    expect(fractionOf(money(300, 'NGN'), '0.015', 'half_even')).toEqual(money(4, 'NGN'));
    expect(fractionOf(money(-300, 'NGN'), '0.015')).toEqual(money(-5, 'NGN')); // half away from zero
    expect(fractionOf(money(1000, 'JPY'), 0.08)).toEqual(money(80, 'JPY'));
  });
});

describe('currency conversion', () => {
  it('applies both exponents exactly and rounds once, half up', () => {
    // 10.00 USD at 1 USD = 1543.21 NGN → 15432.10 NGN
    expect(convertMoney(money(1000, 'USD'), 'NGN', '1543.21')).toEqual(money(1_543_210, 'NGN'));
    // 10.00 USD → JPY at 151.235: 1512.35 → 1512 whole yen
    expect(convertMoney(money(1000, 'USD'), 'JPY', '151.235')).toEqual(money(1512, 'JPY'));
    // 10.50 USD → JPY at 151: 1585.5 → 1586 (half up)
    expect(convertMoney(money(1050, 'USD'), 'JPY', 151)).toEqual(money(1586, 'JPY'));
    // 1500 JPY → USD at 0.0066: 9.90 USD
    expect(convertMoney(money(1500, 'JPY'), 'USD', '0.0066')).toEqual(money(990, 'USD'));
    // 1.000 KWD → USD at 3.25: 3.25 USD
    expect(convertMoney(money(1000, 'KWD'), 'USD', '3.25')).toEqual(money(325, 'USD'));
    // 25,000 KRW → VND at 18.3 → 457,500 VND
    expect(convertMoney(money(25_000, 'KRW'), 'VND', '18.3')).toEqual(money(457_500, 'VND'));
  });

  it('does not suffer binary float error (0.1 + 0.2 style)', () => {
    // 0.29 USD × 100 would be 28.999999999999996 in floats
    expect(convertMoney(money(29, 'USD'), 'EUR', '1')).toEqual(money(29, 'EUR'));
    expect(convertMoney(money(1, 'USD'), 'JPY', '100.5')).toEqual(money(1, 'JPY')); // 1.005 → 1
  });

  it('rejects non-positive rates and unknown targets', () => {
    expect(() => convertMoney(money(1, 'USD'), 'NGN', '0')).toThrow();
    expect(() => convertMoney(money(1, 'USD'), 'NGN', '-1')).toThrow();
    expect(() => convertMoney(money(1, 'USD'), 'XXX1', '1')).toThrow();
  });
});

describe('1% tolerance check', () => {
  it('passes exactly 1% off and fails just above, in both directions', () => {
    expect(withinTolerance(10_100, 10_000, '0.01')).toBe(true);
    expect(withinTolerance(9_900, 10_000, '0.01')).toBe(true);
    expect(withinTolerance(10_101, 10_000, '0.01')).toBe(false);
    expect(withinTolerance(9_899, 10_000, '0.01')).toBe(false);
  });

  it('works for whole-unit currencies where 1% is a few units', () => {
    expect(withinTolerance(1515, 1500, 0.01)).toBe(true); // exactly 15 yen off
    expect(withinTolerance(1516, 1500, 0.01)).toBe(false);
    expect(withinTolerance(101, 100, 0.01)).toBe(true);
    expect(withinTolerance(102, 100, 0.01)).toBe(false);
  });
});

describe('formatting', () => {
  it('shows exactly the ISO minor digits', () => {
    expect(toMajorUnitString(money(12_345, 'NGN'))).toBe('123.45');
    expect(toMajorUnitString(money(5, 'USD'))).toBe('0.05');
    expect(toMajorUnitString(money(-5, 'USD'))).toBe('-0.05');
    expect(toMajorUnitString(money(1500, 'JPY'))).toBe('1500');
    expect(toMajorUnitString(money(1234, 'KWD'))).toBe('1.234');
    expect(formatMoney(money(123_456, 'USD'))).toBe('$1,234.56');
    expect(formatMoney(money(1500, 'JPY'))).toBe('¥1,500');
    expect(formatMoney(money(1234, 'KWD'), 'en-US')).toBe('KWD\u00a01.234');
    expect(formatMoney(money(12_345, 'NGN'))).toBe('NGN\u00a0123.45');
    expect(formatMoney(money(900_719_925_474_099, 'USD'))).toBe('$9,007,199,254,740.99');
  });
});

describe('display values', () => {
  it('are whole currency units of the amount, for every exponent', () => {
    expect([money(12_345, 'NGN'), money(1500, 'JPY'), money(1234, 'KWD'), money(-5, 'USD')].map(toMajorUnits)).toEqual([
      123.45, 1500, 1.234, -0.05,
    ]);
  });

  it('cannot be used where an amount is expected (the types differ)', () => {
    const display: MajorUnits = toMajorUnits(money(100, 'USD'));
    // @ts-expect-error a display value is not an amount of minor units
    const wrong: Money = { amount: display, currency: 'USD' };
    const right: Money = { amount: 100, currency: 'USD' };
    expect([wrong.amount, right.amount]).toEqual([1, 100]);
  });
});
