import { decimalToString, divideAndRound, type Decimal } from '@ppay/kernel';

/** Exact decimal arithmetic for rates and percentages, beyond what the kernel's money needs. */

/** Significant digits of every quoted rate (cross rates and surcharged rates). */
export const RATE_SIGNIFICANT_DIGITS = 10;

/** Strips trailing fractional zeros: 1.5000 → 1.5, 10.00 → 10. */
export function normaliseDecimal(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

/** The shortest exact decimal string: 1.5000 → "1.5", 10.00 → "10". */
export function decimalString(d: Decimal): string {
  return decimalToString(normaliseDecimal(d));
}

export function multiplyDecimals(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/**
 * numerator / denominator (both positive) rounded half up to `significant` significant digits.
 * Exact BigInt arithmetic: the only rounding is this one.
 */
export function divideToSignificant(
  numerator: Decimal,
  denominator: Decimal,
  significant = RATE_SIGNIFICANT_DIGITS,
): Decimal {
  if (numerator.units <= 0n || denominator.units <= 0n) throw new RangeError('rates must be positive');
  // value = n / d where n, d are integers
  const n = numerator.units * 10n ** BigInt(denominator.scale);
  const d = denominator.units * 10n ** BigInt(numerator.scale);
  // shift k such that n·10^k / d has exactly `significant` integer digits
  let k = significant - 1 - (n.toString().length - d.toString().length);
  const lower = 10n ** BigInt(significant - 1);
  const upper = 10n ** BigInt(significant);
  for (;;) {
    const q = k >= 0 ? divideAndRound(n * 10n ** BigInt(k), d) : divideAndRound(n, d * 10n ** BigInt(-k));
    if (q >= upper) k -= 1;
    else if (q < lower) k += 1;
    else return normaliseDecimal(k >= 0 ? { units: q, scale: k } : { units: q * 10n ** BigInt(-k), scale: 0 });
  }
}
