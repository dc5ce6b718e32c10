import type { Mode, Money } from '@ppay/kernel';

export interface FxQuote {
  result: Money;
  rate: number;
  rate_decimal: string;
  source: string;
  surcharge_percent: number;
}

/** fx-pricing's conversion, for charges priced in one currency and paid in another (spec 4.1). */
export interface FxConverter {
  /** CONVERSION_FAILED when no rate exists between the currencies; an outage stays a 5xx. */
  convert(from: Money, toCurrency: string, mode: Mode, deadline?: Date): Promise<FxQuote>;
}
