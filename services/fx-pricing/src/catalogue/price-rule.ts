import { isCountryCode, parseDecimal } from '@ppay/kernel';
import { decimalString } from '../rates/decimals';
import { invalid, positiveId } from './product';

/** A per-country price adjustment (spec 4.4), for one product or (product_id 0) every product of the merchant. */
export interface PriceRuleRecord {
  merchant_id: number;
  product_id: number;
  country: string;
  /** Decimal fraction string: "0.15" = +15 %, "-0.3" = −30 %. */
  percentage: string;
  updated_at: Date;
}

export interface PriceRuleInput {
  merchant_id: number;
  product_id?: number;
  country: string;
  percentage: string | number;
}

/** Lowest allowed adjustment: −100 % would make the product free, and below that negative. */
const MIN_PERCENTAGE = parseDecimal('-1');
const MAX_PERCENTAGE = parseDecimal('10');

export function validatePercentage(value: string | number): string {
  let p;
  try {
    p = parseDecimal(value);
  } catch {
    throw invalid('percentage must be a decimal fraction such as 0.15 or -0.30', 'percentage');
  }
  // compare p with the bounds exactly on a common scale
  const scale = Math.max(p.scale, 0);
  const at = (d: { units: bigint; scale: number }) => d.units * 10n ** BigInt(scale - d.scale);
  if (p.scale > 6 || at(p) <= at(MIN_PERCENTAGE) || at(p) > at(MAX_PERCENTAGE)) {
    throw invalid('percentage must be above -1 and at most 10, with at most 6 decimals', 'percentage');
  }
  return decimalString(p);
}

export function validateRule(input: PriceRuleInput): Omit<PriceRuleRecord, 'updated_at'> {
  const merchant_id = positiveId(input.merchant_id, 'merchant_id');
  const product_id = input.product_id ? positiveId(input.product_id, 'product_id') : 0;
  const country = typeof input.country === 'string' ? input.country.trim().toUpperCase() : '';
  if (!isCountryCode(country)) throw invalid('country must be an ISO 3166-1 alpha-2 code', 'country');
  return { merchant_id, product_id, country, percentage: validatePercentage(input.percentage) };
}
