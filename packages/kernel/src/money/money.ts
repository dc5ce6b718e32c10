import { minorUnitExponent, normaliseCurrency } from './currencies';
import { divideAndRound, parseDecimal, type RoundingMode } from './decimal';

/**
 * An integer count of a currency's minor unit (kobo, cents; whole yen for JPY): how every amount is
 * held, stored and sent between services. Any plain number may be one; a `MajorUnits` display value
 * may not (the brands differ), so a display value can never be mistaken for an amount.
 */
export type MinorUnits = number & { readonly __unit?: 'minor' };

/**
 * A display value in whole currency units (123.45 for 12,345 kobo), for the few REST fields the spec
 * shows that way. Made only by `toMajorUnits`, at the gateway edge; never stored, summed or sent on.
 */
export type MajorUnits = number & { readonly __unit: 'major' };

/**
 * Money is an integer amount of the currency's minor unit plus its ISO 4217 code.
 * Amounts must be safe integers: the wire format is int64 but JS numbers are exact only to 2^53.
 */
export interface Money {
  readonly amount: MinorUnits;
  readonly currency: string;
}

export function isMinorUnitAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

export function money(amount: number, currency: string): Money {
  const code = normaliseCurrency(currency);
  if (!code) throw new RangeError(`Unknown currency ${currency}`);
  if (!isMinorUnitAmount(amount)) {
    throw new RangeError(`Amount must be an integer number of minor units, got ${amount}`);
  }
  return { amount, currency: code };
}

function sameCurrency(a: Money, b: Money): void {
  if (a.currency !== b.currency) {
    throw new RangeError(`Currency mismatch: ${a.currency} vs ${b.currency}`);
  }
}

function checked(amount: bigint, currency: string): Money {
  const n = Number(amount);
  if (!Number.isSafeInteger(n)) throw new RangeError('Amount out of range');
  return { amount: n, currency };
}

export function addMoney(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return checked(BigInt(a.amount) + BigInt(b.amount), a.currency);
}

export function subtractMoney(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return checked(BigInt(a.amount) - BigInt(b.amount), a.currency);
}

/**
 * Applies a percentage expressed as a decimal fraction ("0.015" = 1.5%) and rounds half up to
 * the currency's minor unit. Used for fees and commissions.
 */
export function fractionOf(value: Money, fraction: string | number, mode: RoundingMode = 'half_up'): Money {
  const f = parseDecimal(fraction);
  return checked(divideAndRound(BigInt(value.amount) * f.units, 10n ** BigInt(f.scale), mode), value.currency);
}

/**
 * Converts between currencies with an exchange rate quoted as "1 unit of source = rate units of
 * target" (major units). The minor-unit exponents of both currencies are applied exactly, and the
 * result is rounded once, half up, to the target currency's minor unit (whole units for JPY/KRW/VND).
 */
export function convertMoney(
  value: Money,
  targetCurrency: string,
  rate: string | number,
  mode: RoundingMode = 'half_up',
): Money {
  const target = normaliseCurrency(targetCurrency);
  if (!target) throw new RangeError(`Unknown currency ${targetCurrency}`);
  const r = parseDecimal(rate);
  if (r.units <= 0n) throw new RangeError('Exchange rate must be positive');
  const shift = minorUnitExponent(target) - minorUnitExponent(value.currency);
  let numerator = BigInt(value.amount) * r.units;
  let denominator = 10n ** BigInt(r.scale);
  if (shift >= 0) numerator *= 10n ** BigInt(shift);
  else denominator *= 10n ** BigInt(-shift);
  return checked(divideAndRound(numerator, denominator, mode), target);
}

/**
 * True when `actual` is within `tolerance` (a fraction, "0.01" = 1%) of `expected`, comparing
 * exactly: |actual - expected| * 10^scale <= expected * units. Exactly 1% off passes.
 */
export function withinTolerance(actual: number, expected: number, tolerance: string | number): boolean {
  const t = parseDecimal(tolerance);
  const diff = BigInt(actual) - BigInt(expected);
  const absDiff = diff < 0n ? -diff : diff;
  const base = BigInt(expected) < 0n ? -BigInt(expected) : BigInt(expected);
  return absDiff * 10n ** BigInt(t.scale) <= base * t.units;
}

/** The display value of an amount in whole currency units (see `MajorUnits`). */
export function toMajorUnits(value: Money): MajorUnits {
  return Number(toMajorUnitString(value)) as MajorUnits;
}

/** Minor units as a decimal string in major units, e.g. 12345 NGN → "123.45", 500 JPY → "500". */
export function toMajorUnitString(value: Money): string {
  const exponent = minorUnitExponent(value.currency);
  const negative = value.amount < 0;
  const digits = Math.abs(value.amount)
    .toString()
    .padStart(exponent + 1, '0');
  const int = digits.slice(0, digits.length - exponent);
  const frac = exponent > 0 ? '.' + digits.slice(digits.length - exponent) : '';
  return (negative ? '-' : '') + int + frac;
}

const formatters = new Map<string, Intl.NumberFormat>();

/**
 * Formats for display with Intl.NumberFormat, always showing exactly the ISO minor-unit digits.
 * Intl.NumberFormat accepts a decimal string, so the amount never becomes a float.
 */
export function formatMoney(value: Money, locale = 'en-US'): string {
  const key = `${locale}|${value.currency}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    const digits = minorUnitExponent(value.currency);
    formatter = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: value.currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formatters.set(key, formatter);
  }
  return formatter.format(toMajorUnitString(value) as unknown as number);
}
