import { convertMoney, parseDecimal, PlatformError, type Decimal, type Mode, type Money } from '@ppay/kernel';
import { decimalString, divideToSignificant, multiplyDecimals } from './decimals';
import { unsupportedPair, type RateSource } from './rates';

export const IDENTITY_SOURCE = 'identity';

export interface Conversion {
  result: Money;
  /** Effective rate actually applied (surcharge included), exact decimal string. */
  rate: string;
  /** Rate before the surcharge. */
  mid_rate: string;
  source: string;
  /** Percent, e.g. "1.5" = 1.5 %; "0" for identity conversions. */
  surcharge_percent: string;
  rate_date: string;
  applied: boolean;
}

/** Surcharge percent "1.5" → factor 1.015 as an exact decimal. */
export function surchargeFactor(percent: string): Decimal {
  const p = parseDecimal(percent);
  return { units: 100n * 10n ** BigInt(p.scale) + p.units, scale: p.scale + 2 };
}

/** mid × (1 + percent/100), rounded half up to 10 significant digits. */
const surcharged = new Map<string, string>();

export function applySurcharge(midRate: string, percent: string): string {
  if (parseDecimal(percent).units === 0n) return midRate;
  const key = `${midRate}|${percent}`;
  let rate = surcharged.get(key);
  if (rate === undefined) {
    rate = decimalString(
      divideToSignificant(multiplyDecimals(parseDecimal(midRate), surchargeFactor(percent)), { units: 1n, scale: 0 }),
    );
    // Bounded: a live feed yields new mid rates every refresh.
    if (surcharged.size >= 10_000) surcharged.clear();
    surcharged.set(key, rate);
  }
  return rate;
}

export interface ConverterOptions {
  /** Used for sandbox callers always, and for everyone when RATE_SOURCE=bundled. */
  bundled: RateSource;
  /** The configured source for live (and mode-less internal) callers. */
  configured: RateSource;
  surchargePercent: string;
}

/**
 * Converts money with the rate source that fits the caller: sandbox → bundled table, otherwise
 * the configured source. The surcharge (FX markup) is applied to the rate, so the converted amount
 * grows by the surcharge percent; the amount is rounded once, half up, to the target's minor unit.
 */
export class Converter {
  constructor(private readonly options: ConverterOptions) {
    const p = parseDecimal(options.surchargePercent);
    if (p.units < 0n) throw new RangeError('FX surcharge percent must not be negative');
  }

  get surchargePercent(): string {
    return decimalString(parseDecimal(this.options.surchargePercent));
  }

  sourceFor(mode: Mode | undefined): RateSource {
    return mode === 'sandbox' ? this.options.bundled : this.options.configured;
  }

  async convert(value: Money, to: string, mode: Mode | undefined): Promise<Conversion> {
    if (value.currency === to) {
      return {
        result: { amount: value.amount, currency: to },
        rate: '1',
        mid_rate: '1',
        source: IDENTITY_SOURCE,
        surcharge_percent: '0',
        rate_date: '',
        applied: false,
      };
    }
    const quote = await this.sourceFor(mode).quote(value.currency, to);
    const rate = applySurcharge(quote.rate, this.options.surchargePercent);
    let result: Money;
    try {
      result = convertMoney(value, to, rate);
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      throw new PlatformError('CONVERSION_FAILED', `Unable to convert from ${value.currency} to ${to}`, {
        detail: (err as Error).message,
        cause: err,
      });
    }
    return {
      result,
      rate,
      mid_rate: quote.rate,
      source: quote.source,
      surcharge_percent: this.surchargePercent,
      rate_date: quote.as_of,
      applied: true,
    };
  }

  /** Throws the "Unable to convert" 400 when the pair cannot be priced (used to validate early). */
  static unsupported(from: string, to: string, param?: string): PlatformError {
    return unsupportedPair(from, to, param);
  }
}
