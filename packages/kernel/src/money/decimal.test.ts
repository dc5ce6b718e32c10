import { decimalToString, divideAndRound, multiplyInteger, parseDecimal } from './decimal';

describe('decimal parsing', () => {
  it.each([
    ['1543.21', 154321n, 2],
    ['0.0800', 800n, 4],
    ['-2.5', -25n, 1],
    ['1e-3', 1n, 3],
    ['2E2', 200n, 0],
    ['7', 7n, 0],
  ])('%s', (input, units, scale) => {
    expect(parseDecimal(input)).toEqual({ units, scale });
  });

  it('parses JS numbers through their shortest decimal form', () => {
    expect(parseDecimal(0.1)).toEqual({ units: 1n, scale: 1 });
    expect(decimalToString(parseDecimal(0.015))).toBe('0.015');
  });

  it('rejects non-numbers', () => {
    for (const bad of ['', 'abc', '1.2.3', '0x10', 'NaN']) expect(() => parseDecimal(bad)).toThrow(RangeError);
    expect(() => parseDecimal(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('rounding', () => {
  it.each([
    [5n, 2n, 'half_up', 3n],
    [-5n, 2n, 'half_up', -3n],
    [5n, 2n, 'half_even', 2n],
    [7n, 2n, 'half_even', 4n],
    [5n, 2n, 'down', 2n],
    [5n, 2n, 'up', 3n],
    [4n, 2n, 'up', 2n],
    [149n, 100n, 'half_up', 1n],
    [150n, 100n, 'half_up', 2n],
  ] as const)('%s / %s (%s) = %s', (n, d, mode, expected) => {
    expect(divideAndRound(n, d, mode)).toBe(expected);
  });

  it('multiplies integers by decimals exactly', () => {
    expect(multiplyInteger(12345n, parseDecimal('0.0800'))).toBe(988n); // 987.6 → 988
    expect(() => divideAndRound(1n, 0n)).toThrow();
  });
});
