import { money, PlatformError, type Mode, type Money } from '@ppay/kernel';

export const PRODUCT_TYPES = ['digital', 'physical', 'service', 'subscription'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

/** A variation of a product (a size, a colour): its own price (or the product's) and its own stock. */
export interface ProductVariation {
  variation_id: string;
  name: string;
  /** In the product's currency; null: the product's price. */
  price: Money | null;
  /** Units for sale; null: unlimited. */
  stock: number | null;
}

/** Where a physical product ships and what shipping costs (one fee per order line, whatever the quantity). */
export interface ProductShipping {
  fee: Money;
  /** ISO 3166-1 alpha-2 codes. */
  countries: string[];
}

export interface ProductRecord {
  id: number;
  merchant_id: number;
  /** The mode of the key that created it; null for a seeded product, which both modes see. */
  mode: Mode | null;
  name: string;
  description: string;
  type: ProductType;
  /** In the merchant's pricing currency, integer minor units. */
  base_price: Money;
  /** The merchant lets customers pay it in installments (a session with `installments`, issue 26). */
  installments_allowed: boolean;
  /** Units for sale of a physical product without variations; null: unlimited (and for every other product). */
  stock: number | null;
  variations: ProductVariation[];
  shipping: ProductShipping | null;
  /** Sold on new checkouts; an inactive product keeps its pricing and history. */
  active: boolean;
  /** DELETE archives: kept for orders and reports, never listed, never sold again. */
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The key of a product's own stock level (its variations' are their ids). */
export const OWN_STOCK = '_';

/** What a product has that the seed file never sets: a seeded (or older) product reads with these. */
export const PRODUCT_DEFAULTS: Pick<
  ProductRecord,
  'mode' | 'description' | 'stock' | 'variations' | 'shipping' | 'active' | 'archived_at'
> = {
  mode: null,
  description: '',
  stock: null,
  variations: [],
  shipping: null,
  active: true,
  archived_at: null,
};

export interface ProductInput {
  id?: number;
  merchant_id: number;
  name: string;
  type: string;
  base_price: { amount: number; currency: string };
  /** Absent: false. */
  installments_allowed?: boolean;
}

/** A catalogue input the caller got wrong: 400 naming the parameter. */
export const invalid = (message: string, param: string) => new PlatformError('VALIDATION_FAILED', message, { param });

export function positiveId(value: unknown, param: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(`${param} must be a positive integer`, param);
  }
  return value;
}

/** Another merchant's product is indistinguishable from a missing one. */
export function productNotFound(): PlatformError {
  return new PlatformError('PRODUCT_NOT_FOUND', undefined, { param: 'product_id' });
}

export function validateProduct(
  input: ProductInput,
): Pick<ProductRecord, 'merchant_id' | 'name' | 'type' | 'base_price' | 'installments_allowed'> {
  const merchant_id = positiveId(input.merchant_id, 'merchant_id');
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name || name.length > 200) throw invalid('name is required (at most 200 characters)', 'name');
  if (!(PRODUCT_TYPES as readonly string[]).includes(input.type)) {
    throw invalid(`type must be one of ${PRODUCT_TYPES.join(', ')}`, 'type');
  }
  let base_price: Money;
  try {
    base_price = money(input.base_price?.amount, input.base_price?.currency);
  } catch {
    throw invalid('base_price must be an integer amount of minor units and an ISO 4217 currency', 'base_price');
  }
  if (base_price.amount < 0) throw invalid('base_price.amount must not be negative', 'base_price.amount');
  const installments = input.installments_allowed ?? false;
  if (typeof installments !== 'boolean')
    throw invalid('installments_allowed must be a boolean', 'installments_allowed');
  return { merchant_id, name, type: input.type as ProductType, base_price, installments_allowed: installments };
}
