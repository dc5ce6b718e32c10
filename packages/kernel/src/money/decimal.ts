/**
 * Exact decimal arithmetic for money, on BigInt, so no amount ever passes through a binary float.
 * Rates and percentages arrive as decimal strings ("1543.21", "0.0800") or as JS numbers that are
 * first rendered to their shortest round-tripping decimal string.
 */

export interface Decimal {
  /** value = units / 10^scale */
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_PATTERN = /^([+-])?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

export function parseDecimal(input: string | number): Decimal {
  const text = typeof input === 'number' ? numberToDecimalString(input) : input.trim();
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) throw new RangeError(`Not a decimal number: ${String(input)}`);
  const [, sign, intPart, fracPart = '', expPart] = match;
  let digits = BigInt(intPart + fracPart);
  let scale = fracPart.length - (expPart ? Number(expPart) : 0);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: sign === '-' ? -digits : digits, scale };
}

function numberToDecimalString(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
  return String(value);
}

export function decimalToString(value: Decimal): string {
  const negative = value.units < 0n;
  const digits = (negative ? -value.units : value.units).toString().padStart(value.scale + 1, '0');
  const int = digits.slice(0, digits.length - value.scale);
  const frac = value.scale > 0 ? '.' + digits.slice(digits.length - value.scale) : '';
  return (negative ? '-' : '') + int + frac;
}

export type RoundingMode = 'half_up' | 'half_even' | 'down' | 'up';

/**
 * Divides numerator by denominator (denominator > 0) and rounds to an integer.
 * half_up rounds halves away from zero (commercial rounding), the platform default.
 */
export function divideAndRound(numerator: bigint, denominator: bigint, mode: RoundingMode = 'half_up'): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  let quotient = n / denominator;
  const remainder = n % denominator;
  if (remainder !== 0n) {
    const twice = remainder * 2n;
    switch (mode) {
      case 'down':
        break;
      case 'up':
        quotient += 1n;
        break;
      case 'half_up':
        if (twice >= denominator) quotient += 1n;
        break;
      case 'half_even':
        if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) quotient += 1n;
        break;
    }
  }
  return negative ? -quotient : quotient;
}

/** Multiplies an integer by a decimal and rounds the product to an integer. */
export function multiplyInteger(value: bigint, factor: Decimal, mode: RoundingMode = 'half_up'): bigint {
  return divideAndRound(value * factor.units, 10n ** BigInt(factor.scale), mode);
}
