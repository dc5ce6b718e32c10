import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from './common';
import { CurrencyOf, MinorUnitsOf } from './money';

/** A wire `FormattedMoney {money, formatted}`, flattened as the spec shows it. */
const Amount = Type.Object({
  amount: MinorUnitsOf('money', { description: 'Smallest currency unit (whole units for JPY, KRW, VND)' }),
  currency: CurrencyOf('money', { description: 'ISO 4217' }),
  formatted: Type.String({ description: 'Intl.NumberFormat, English with the customer country conventions' }),
});

const Conversion = Type.Object({
  rate: Type.Number({
    description: '1 unit of the base currency = rate units of the local currency (surcharge included)',
  }),
  source: Type.String({ description: 'Rate source: identity, bundled:<table date> or live:<host>' }),
  applied: Type.Boolean(),
  surcharge_percent: Type.Number({ description: 'FX markup included in rate, in percent' }),
  rate_date: Type.String({ description: 'As-of of the rate; empty when no conversion was applied' }),
});

/** Spec 4.4 response `data`. */
export const ProductPricing = Type.Object({
  product: Type.Object({ id: Type.Integer(), name: Type.String(), type: Type.String() }),
  pricing: Type.Object({ base: Amount, local: Amount, conversion: Conversion }),
  price_discrimination: Nullable(
    Type.Object({
      // In the product's base currency (pricing.base.currency), the rule applying before conversion.
      original_base_price: MinorUnitsOf('original_base_price'),
      discrimination_amount: MinorUnitsOf('discrimination_amount'),
      adjusted_base_price: MinorUnitsOf('adjusted_base_price'),
      discrimination_percentage: Type.Number({ description: '0.15 means +15%' }),
      country_triggered: Type.String(),
    }),
  ),
  amount: Type.Object({ product_price: Amount, total: Amount }),
  customer: Type.Object({
    location: Type.Object({
      country: Type.String(),
      country_code: Type.String(),
      detected_from: StringEnum(['query', 'currency', 'ip', 'default'] as const),
    }),
    currency: Type.Object({ code: Type.String(), detected: Type.Boolean(), override: Type.Boolean() }),
  }),
  payment: Type.Object({ methods: Type.Array(Type.String()), currency: Type.String() }),
});

/** GET /pricing/calculate response `data` (spec 4.1 amount double-check). */
export const Calculation = Type.Object({
  base: Amount,
  local: Amount,
  rate: Type.Number(),
  rate_decimal: Type.String({ description: 'The exact rate used' }),
  source: Type.String(),
  surcharge_percent: Type.Number(),
  rate_date: Type.String(),
  applied: Type.Boolean(),
});

const Currency = (description = '3-letter ISO 4217 code') => Type.String({ pattern: '^[A-Za-z]{3}$', description });

export const PricingParams = Type.Object({ product_id: Type.Integer({ minimum: 1 }) });
export const PricingQuery = Type.Object({
  currency: Type.Optional(Currency()),
  customer_country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: '2-letter ISO 3166-1 code' })),
});
export const CalculateQuery = Type.Object({
  amount: Type.Integer({ minimum: 0, description: 'Smallest unit of source_currency' }),
  target_currency: Currency(),
  source_currency: Type.Optional(Currency("Default: the merchant's baseline currency")),
});
