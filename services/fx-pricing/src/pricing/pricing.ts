import {
  addMoney,
  isCountryCode,
  money,
  normaliseCurrency,
  parseDecimal,
  PlatformError,
  type Mode,
  type Money,
} from '@ppay/kernel';
import type { Catalogue } from '../catalogue/catalogue';
import type { PriceRuleRecord } from '../catalogue/price-rule';
import { productNotFound, type ProductRecord } from '../catalogue/product';
import type { Conversion, Converter } from '../rates/conversion';
import type { GeoLocator } from './geo';
import {
  countryOfCurrency,
  currencyOfCountry,
  defaultCountryOf,
  displayCountryName,
  displayLocale,
  formatted,
  isChargeableCurrency,
  type FormattedMoney,
  paymentMethodsFor,
} from './locale';
import { unsupportedPair } from '../rates/rates';

export type DetectedFrom = 'query' | 'currency' | 'ip' | 'default';

export interface CustomerContext {
  country_code: string | undefined;
  detected_from: DetectedFrom;
  currency: string;
  currency_detected: boolean;
  currency_override: boolean;
}

export interface PricingQuery {
  currency?: string;
  customer_country?: string;
  client_ip?: string;
}

/**
 * Spec 4.4 detection. Country: `customer_country` (query) → the country of an unambiguous
 * `currency` (NGN → NG) → IP geolocation → default (the issuer country of the currency, or of the
 * base currency when no currency was given). Currency: the `currency` override → the detected
 * country's currency (query/ip) → the product's base currency.
 */
export function detectCustomer(query: PricingQuery, baseCurrency: string, geo: GeoLocator): CustomerContext {
  let override: string | undefined;
  if (query.currency) {
    override = normaliseCurrency(query.currency);
    if (!override) throw unsupportedPair(baseCurrency, query.currency.toUpperCase(), 'currency');
  }
  let country: string | undefined;
  let from: DetectedFrom;
  if (query.customer_country) {
    country = query.customer_country.trim().toUpperCase();
    if (!isCountryCode(country)) {
      throw new PlatformError('VALIDATION_FAILED', 'customer_country must be an ISO 3166-1 alpha-2 code', {
        param: 'customer_country',
      });
    }
    from = 'query';
  } else if (override && countryOfCurrency(override)) {
    country = countryOfCurrency(override);
    from = 'currency';
  } else if (query.client_ip && (country = geo.locate(query.client_ip))) {
    from = 'ip';
  } else {
    country = defaultCountryOf(override ?? baseCurrency);
    from = 'default';
  }
  if (override) {
    return {
      country_code: country,
      detected_from: from,
      currency: override,
      currency_detected: false,
      currency_override: true,
    };
  }
  const countryCurrency = from === 'default' ? undefined : country && currencyOfCountry(country);
  return {
    country_code: country,
    detected_from: from,
    currency: countryCurrency ?? baseCurrency,
    currency_detected: countryCurrency !== undefined,
    currency_override: false,
  };
}

/** A regional price rule applied: all three prices in the product's base currency. */
export interface Discrimination {
  original_base_price: Money;
  discrimination_amount: Money;
  adjusted_base_price: Money;
  discrimination_percentage: string;
  country_triggered: string;
}

/**
 * Applies a rule to the base price, before conversion (spec 4.4): the adjustment is
 * base × percentage rounded once, half away from zero, to the base currency's minor unit.
 */
export function applyRule(base: Money, rule: PriceRuleRecord): { adjusted: Money; discrimination: Discrimination } {
  const p = parseDecimal(rule.percentage);
  const scale = 10n ** BigInt(p.scale);
  const raw = BigInt(base.amount) * p.units;
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  let delta = abs / scale;
  if ((abs % scale) * 2n >= scale) delta += 1n;
  const adjustment = money(Number(negative ? -delta : delta), base.currency);
  const adjusted = addMoney(base, adjustment);
  return {
    adjusted,
    discrimination: {
      original_base_price: base,
      discrimination_amount: adjustment,
      adjusted_base_price: adjusted,
      discrimination_percentage: rule.percentage,
      country_triggered: rule.country,
    },
  };
}

export interface ProductPricingResult {
  product: { id: number; name: string; type: string; installments_allowed: boolean };
  base: FormattedMoney;
  local: FormattedMoney;
  conversion: Conversion;
  price_discrimination: Discrimination | null;
  product_price: FormattedMoney;
  total: FormattedMoney;
  location: { country: string; country_code: string; detected_from: DetectedFrom };
  currency: { code: string; detected: boolean; override: boolean };
  payment: { methods: string[]; currency: string };
}

export interface CalculateResult {
  base: FormattedMoney;
  local: FormattedMoney;
  conversion: Conversion;
}

/**
 * A product this key may price: one of its own mode (or a seeded one, which both modes see); another
 * mode's is unknown, as on GET /products/{id}. An archived product is no longer sold, so it has no
 * price to show a customer (409 PRODUCT_ARCHIVED, as when it is changed); an inactive one keeps its price.
 */
function sellable(product: ProductRecord, mode: Mode | undefined): ProductRecord {
  if (product.mode !== null && product.mode !== mode) throw productNotFound();
  if (product.archived_at) {
    throw new PlatformError('PRODUCT_ARCHIVED', undefined, {
      param: 'product_id',
      detail: 'an archived product is not sold, so it has no price',
    });
  }
  return product;
}

export class PricingService {
  constructor(
    private readonly catalogue: Catalogue,
    private readonly converter: Converter,
    private readonly geo: GeoLocator,
  ) {}

  async productPricing(
    merchantId: number,
    mode: Mode | undefined,
    productId: number,
    query: PricingQuery,
  ): Promise<ProductPricingResult> {
    const product = sellable(await this.catalogue.product(merchantId, productId), mode);
    const base = product.base_price;
    const customer = detectCustomer(query, base.currency, this.geo);
    // A guessed (default) country never triggers a regional price.
    const rule =
      customer.country_code && customer.detected_from !== 'default'
        ? await this.catalogue.ruleFor(product, customer.country_code)
        : undefined;
    const applied = rule ? applyRule(base, rule) : undefined;
    const conversion = await this.convert(applied?.adjusted ?? base, customer.currency, mode, 'currency');
    const locale = displayLocale(customer.country_code);
    const local = formatted(conversion.result, locale);
    // The customer pays in the local currency when a gateway takes it, otherwise in the base currency.
    const localCurrency = conversion.result.currency;
    const paymentCurrency = isChargeableCurrency(localCurrency) ? localCurrency : base.currency;
    return {
      product: {
        id: product.id,
        name: product.name,
        type: product.type,
        installments_allowed: product.installments_allowed,
      },
      base: formatted(base, locale),
      local,
      conversion,
      price_discrimination: applied?.discrimination ?? null,
      product_price: local,
      total: local,
      location: {
        country: displayCountryName(customer.country_code),
        country_code: customer.country_code ?? '',
        detected_from: customer.detected_from,
      },
      currency: { code: customer.currency, detected: customer.currency_detected, override: customer.currency_override },
      payment: { methods: paymentMethodsFor(paymentCurrency), currency: paymentCurrency },
    };
  }

  /** Spec 4.1 double-check: `amount` of `source` in `target`, with the same rate and surcharge as charges. */
  async calculate(mode: Mode | undefined, amount: number, source: string, target: string): Promise<CalculateResult> {
    const from = normaliseCurrency(source);
    if (!from) {
      throw new PlatformError('UNSUPPORTED_CURRENCY', `Unable to convert from ${source} to ${target}`, {
        param: 'source_currency',
      });
    }
    const to = normaliseCurrency(target);
    if (!to) throw unsupportedPair(from, target.toUpperCase(), 'target_currency');
    if (!Number.isSafeInteger(amount) || amount < 0) {
      throw new PlatformError('VALIDATION_FAILED', 'amount must be a non-negative integer in minor units', {
        param: 'amount',
      });
    }
    const value = money(amount, from);
    const conversion = await this.convert(value, to, mode, 'target_currency');
    const locale = displayLocale(defaultCountryOf(to));
    return { base: formatted(value, locale), local: formatted(conversion.result, locale), conversion };
  }

  async convert(value: Money, to: string, mode: Mode | undefined, param?: string): Promise<Conversion> {
    try {
      return await this.converter.convert(value, to, mode);
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'UNSUPPORTED_CURRENCY' && param && !err.param) {
        throw new PlatformError(err.code, err.message, { param, cause: err });
      }
      throw err;
    }
  }
}
