import { isCountryCode, isSafeKey, money, PlatformError, SAFE_KEY_MAX_LENGTH, type Money } from '@ppay/kernel';
import type { ProductRecord, ProductShipping, ProductVariation } from '../catalogue/product';

/** What partners may create (a `subscription` type stays the seed file's). */
export const PARTNER_PRODUCT_TYPES = ['digital', 'physical', 'service'] as const;
export type PartnerProductType = (typeof PARTNER_PRODUCT_TYPES)[number];

/** Bounds of a product (docs/decisions.md, Products): a product document stays small whatever is sent. */
export const PRODUCT_LIMITS = {
  title: 200,
  description: 5_000,
  variations: 50,
  variationName: 100,
  countries: 250,
  /** Units of stock a product or variation may hold. */
  stock: 1_000_000_000,
} as const;

export interface MoneyInput {
  amount: number;
  currency: string;
}

export interface VariationInput {
  /** An existing variation's id (PATCH keeps it, its stock too unless given); absent: a new one. */
  variation_id?: string;
  name: string;
  price?: MoneyInput | null;
  stock?: number | null;
}

/** POST /products (and the merged result of a PATCH). */
export interface ProductInput {
  title: string;
  description?: string;
  type: string;
  price: MoneyInput;
  variations?: VariationInput[];
  stock?: number | null;
  shipping?: { fee: MoneyInput; countries: string[] } | null;
  active?: boolean;
  /** Customers may pay it in installments (issue 26); absent: false. */
  installments_allowed?: boolean;
}

/** The fields a valid input sets on a product. */
export type ProductFields = Pick<
  ProductRecord,
  | 'name'
  | 'description'
  | 'type'
  | 'base_price'
  | 'stock'
  | 'variations'
  | 'shipping'
  | 'active'
  | 'installments_allowed'
>;

const invalid = (param: string, message: string) => new PlatformError('VALIDATION_FAILED', message, { param });

function moneyOf(input: MoneyInput | undefined, param: string, minimum: number): Money {
  let value: Money;
  try {
    value = money(input?.amount ?? Number.NaN, input?.currency ?? '');
  } catch {
    throw invalid(param, `${param} must be {amount: integer minor units, currency: ISO 4217}`);
  }
  if (value.amount < minimum) throw invalid(`${param}.amount`, `${param}.amount must be at least ${minimum}`);
  return value;
}

function stockOf(value: number | null | undefined, param: string, physical: boolean): number | null {
  if (value === undefined || value === null) return null;
  if (!physical) throw invalid(param, `${param} is only for physical products (others have no stock)`);
  if (!Number.isSafeInteger(value) || value < 0 || value > PRODUCT_LIMITS.stock) {
    throw invalid(param, `${param} must be a whole number from 0 to ${PRODUCT_LIMITS.stock}, or null for unlimited`);
  }
  return value;
}

function textOf(value: unknown, param: string, max: number, required: boolean): string {
  if (value === undefined && !required) return '';
  if (typeof value !== 'string') throw invalid(param, `${param} must be a string`);
  if (value.length > max) throw invalid(param, `${param} must be at most ${max} characters`);
  const text = value.trim();
  if (required && !text) throw invalid(param, `${param} is required`);
  return text;
}

/**
 * A product's fields from a partner's input, each checked (lengths before anything else) and checked
 * together: stock and shipping only for physical products, which must say where they ship; every
 * price in the product's currency, which `pricedIn` must know. `newVariationId` names new variations.
 */
export function validateProductInput(
  input: ProductInput,
  pricedIn: (currency: string) => boolean,
  newVariationId: () => string,
): ProductFields {
  const name = textOf(input.title, 'title', PRODUCT_LIMITS.title, true);
  const description = textOf(input.description, 'description', PRODUCT_LIMITS.description, false);
  if (!(PARTNER_PRODUCT_TYPES as readonly string[]).includes(input.type)) {
    throw invalid('type', `type must be one of ${PARTNER_PRODUCT_TYPES.join(', ')}`);
  }
  const type = input.type as PartnerProductType;
  const physical = type === 'physical';
  const base_price = moneyOf(input.price, 'price', 1);
  if (!pricedIn(base_price.currency)) {
    throw invalid('price.currency', `price.currency ${base_price.currency} is not a currency the platform prices in`);
  }
  const sameCurrency = (m: Money, param: string) => {
    if (m.currency !== base_price.currency) throw invalid(param, `${param} must be in ${base_price.currency}`);
    return m;
  };
  const variations = validateVariations(input.variations ?? [], physical, sameCurrency, newVariationId);
  const stock = stockOf(input.stock, 'stock', physical);
  if (stock !== null && variations.length) {
    throw invalid('stock', 'a product with variations keeps its stock per variation');
  }
  let shipping: ProductShipping | null = null;
  if (input.shipping) {
    if (!physical) throw invalid('shipping', 'shipping is only for physical products');
    shipping = validateShipping(input.shipping, sameCurrency);
  } else if (physical) {
    throw invalid('shipping', 'a physical product needs shipping: {fee, countries it ships to}');
  }
  if (input.active !== undefined && typeof input.active !== 'boolean')
    throw invalid('active', 'active must be a boolean');
  if (input.installments_allowed !== undefined && typeof input.installments_allowed !== 'boolean')
    throw invalid('installments_allowed', 'installments_allowed must be a boolean');
  // Checkout sells physical goods once, never in installments or by subscription: the flag would promise a plan
  // every session of the product is then refused.
  if (physical && input.installments_allowed === true)
    throw invalid('installments_allowed', 'physical products cannot be sold in installments');
  return {
    name,
    description,
    type,
    base_price,
    stock,
    variations,
    shipping,
    active: input.active ?? true,
    installments_allowed: input.installments_allowed ?? false,
  };
}

function validateVariations(
  list: VariationInput[],
  physical: boolean,
  sameCurrency: (m: Money, param: string) => Money,
  newVariationId: () => string,
): ProductVariation[] {
  if (!Array.isArray(list)) throw invalid('variations', 'variations must be a list');
  if (list.length > PRODUCT_LIMITS.variations) {
    throw invalid('variations', `a product has at most ${PRODUCT_LIMITS.variations} variations`);
  }
  const names = new Set<string>();
  const ids = new Set<string>();
  return list.map((v, i) => {
    const param = `variations[${i}]`;
    const name = textOf(v?.name, `${param}.name`, PRODUCT_LIMITS.variationName, true);
    if (names.has(name.toLowerCase())) throw invalid(`${param}.name`, `variation names must be unique (${name})`);
    names.add(name.toLowerCase());
    const id = v.variation_id ?? newVariationId();
    checkVariationId(id, `${param}.variation_id`);
    if (ids.has(id)) throw invalid(`${param}.variation_id`, `variation ids must be unique (${id})`);
    ids.add(id);
    const price = v.price ? sameCurrency(moneyOf(v.price, `${param}.price`, 1), `${param}.price.currency`) : null;
    return { variation_id: id, name, price, stock: stockOf(v.stock, `${param}.stock`, physical) };
  });
}

/**
 * A variation id is a key of the product's stored stock levels (and of maps in memory), so only a
 * safe key (kernel `isSafeKey`) is taken: never a path (`a.b`), an operator (`$where`) or `__proto__`.
 */
export function checkVariationId(id: unknown, param: string): asserts id is string {
  if (typeof id !== 'string') throw invalid(param, `${param} must be a string`);
  if (id.length > SAFE_KEY_MAX_LENGTH)
    throw invalid(param, `${param} must be at most ${SAFE_KEY_MAX_LENGTH} characters`);
  if (!isSafeKey(id)) {
    throw invalid(
      param,
      `${param} must be letters, digits, _ or -, starting with a letter or digit, and not a reserved name`,
    );
  }
}

function validateShipping(
  input: { fee: MoneyInput; countries: string[] },
  sameCurrency: (m: Money, param: string) => Money,
): ProductShipping {
  const fee = sameCurrency(moneyOf(input.fee, 'shipping.fee', 0), 'shipping.fee.currency');
  const list = input.countries;
  if (!Array.isArray(list) || list.length === 0 || list.length > PRODUCT_LIMITS.countries) {
    throw invalid('shipping.countries', `shipping.countries must list 1 to ${PRODUCT_LIMITS.countries} ISO-2 codes`);
  }
  const countries = [
    ...new Set(
      list.map((c, i) => {
        const code = typeof c === 'string' && c.length === 2 ? c.toUpperCase() : '';
        if (!isCountryCode(code)) throw invalid(`shipping.countries[${i}]`, 'shipping.countries holds ISO-2 codes');
        return code;
      }),
    ),
  ];
  return { fee, countries };
}
