import type { Conversion } from '../rates/conversion';
import type { CalculateResult, ProductPricingResult } from './pricing';

/**
 * The API resources of fx-pricing (spec 4.4 and /pricing/calculate), built once from the use-case
 * results: the spec shows rates and percentages as numbers, the exact decimal strings travel beside
 * them. Amounts stay Money (`FormattedMoney` where the spec shows a display string): handlers encode
 * these as they are, and the gateway's response schemas spell each amount the way the spec shows it.
 */
export function rateConversion(c: Conversion) {
  return {
    rate: Number(c.rate),
    rate_decimal: c.rate,
    mid_rate_decimal: c.mid_rate,
    source: c.source,
    surcharge_percent: Number(c.surcharge_percent),
    rate_date: c.rate_date,
    applied: c.applied,
  };
}

export function productPricingResource(r: ProductPricingResult) {
  const d = r.price_discrimination;
  return {
    product: r.product,
    pricing: { base: r.base, local: r.local, conversion: rateConversion(r.conversion) },
    price_discrimination: d
      ? {
          ...d,
          discrimination_percentage: Number(d.discrimination_percentage),
          discrimination_percentage_decimal: d.discrimination_percentage,
        }
      : null,
    amount: { product_price: r.product_price, total: r.total },
    customer: { location: r.location, currency: r.currency },
    payment: r.payment,
  };
}

export function calculationResource(r: CalculateResult) {
  return { base: r.base, local: r.local, ...rateConversion(r.conversion) };
}

/** Convert (payments' double-check of spec 4.1): the converted Money and how it was obtained. */
export function conversionResource(c: Conversion) {
  return { result: c.result, ...rateConversion(c) };
}
