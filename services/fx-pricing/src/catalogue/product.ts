import { money, PlatformError, type Money } from '@ppay/kernel';

export const PRODUCT_TYPES = ['digital', 'physical', 'service', 'subscription'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

export interface ProductRecord {
  id: number;
  merchant_id: number;
  name: string;
  type: ProductType;
  /** In the merchant's pricing currency, integer minor units. */
  base_price: Money;
  /** The merchant lets customers pay it in installments (a session with `installments`, issue 26). */
  installments_allowed: boolean;
  created_at: Date;
  updated_at: Date;
}

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

export function validateProduct(input: ProductInput): Omit<ProductRecord, 'created_at' | 'updated_at' | 'id'> {
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
