import { Schema } from 'mongoose';
import { isSafeKey, type Money } from '@ppay/kernel';
import { OWN_STOCK, PRODUCT_DEFAULTS, type ProductRecord, type ProductShipping, type ProductType } from './product';

/**
 * A product as stored. Stock levels live in one map keyed by variation (`_` for the product itself) so
 * every stock change is a conditional `$inc` of one path (FerretDB has no positional `$` or arrayFilters
 * to reach into the variations array); a missing key is unlimited stock.
 */
export interface ProductDocument {
  _id: number;
  merchant_id: number;
  mode: ProductRecord['mode'];
  name: string;
  description: string;
  type: ProductType;
  base_amount: number;
  base_currency: string;
  /** Absent on products stored before installment plans (issue 26): false. */
  installments_allowed?: boolean;
  variations: { variation_id: string; name: string; price: Money | null }[];
  stock_levels: Record<string, number>;
  /** Checkout holds by session (stock/): units taken while a payment is decided. */
  stock_holds?: Record<string, { key: string; quantity: number; at: Date }>;
  /** Recent returns by order (stock/): each order gives its units back once. */
  stock_returns?: Record<string, Date>;
  shipping: ProductShipping | null;
  active: boolean;
  archived_at: Date | null;
  /** Position in the merchant's list, newest first (`created_at|id`); null once archived. */
  list_key: string | null;
  /** The mode it is listed in: its own, sandbox for a seeded product (demo data). */
  list_mode: 'sandbox' | 'live';
  created_at: Date;
  updated_at: Date;
}

export const productSchema = new Schema<ProductDocument>(
  {
    _id: { type: Number, required: true },
    merchant_id: { type: Number, required: true, index: true },
    mode: { type: String, default: null },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    type: { type: String, required: true },
    base_amount: { type: Number, required: true },
    base_currency: { type: String, required: true },
    installments_allowed: { type: Boolean, default: false },
    variations: { type: Schema.Types.Mixed, default: [] },
    stock_levels: { type: Schema.Types.Mixed, default: {} },
    // Checkout holds by session, and recent returns by order (stock/stock.repo.ts): bounded maps.
    stock_holds: { type: Schema.Types.Mixed, default: {} },
    stock_returns: { type: Schema.Types.Mixed, default: {} },
    shipping: { type: Schema.Types.Mixed, default: null },
    active: { type: Boolean, default: true },
    archived_at: { type: Date, default: null },
    list_key: { type: String, default: null },
    list_mode: { type: String, default: 'sandbox' },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'products', minimize: false },
);
// GET /products: one range of a merchant's list keys per mode, with or without a type or active filter.
productSchema.index({ merchant_id: 1, list_mode: 1, list_key: -1 });
productSchema.index({ merchant_id: 1, list_mode: 1, type: 1, list_key: -1 });
productSchema.index({ merchant_id: 1, list_mode: 1, active: 1, list_key: -1 });

/** What the seed (or an admin upsert) never sets, for a product it inserts. */
export const NEW_PRODUCT_FIELDS = {
  mode: null,
  description: '',
  variations: [],
  stock_levels: {},
  shipping: null,
  active: true,
  archived_at: null,
  list_mode: 'sandbox' as const,
};

/**
 * The path of a stock level (`stock_levels.<key>`), for `_` or a variation id only: a key is checked
 * where the client sent it (products/product-input.ts), and again here, so no client string that got
 * past a check can become another path or an operator.
 */
export function stockLevelPath(key: string): string {
  if (key !== OWN_STOCK && !isSafeKey(key)) throw new Error(`not a stock level key: ${JSON.stringify(key)}`);
  return `stock_levels.${key}`;
}

/** A stored map's own entry (never an inherited member such as `constructor`), or undefined. */
export function ownEntry<T>(map: Record<string, T> | null | undefined, key: string): T | undefined {
  return map && Object.hasOwn(map, key) ? map[key] : undefined;
}

function levelIn(levels: Record<string, number> | undefined, key: string): number | null {
  const level = ownEntry(levels, key);
  return typeof level === 'number' ? level : null;
}

/** The record of a stored product; one stored before partner products existed has their defaults. */
export function toProduct(doc: ProductDocument): ProductRecord {
  const levels = doc.stock_levels;
  return {
    id: doc._id,
    merchant_id: doc.merchant_id,
    mode: doc.mode ?? PRODUCT_DEFAULTS.mode,
    name: doc.name,
    description: doc.description ?? PRODUCT_DEFAULTS.description,
    type: doc.type,
    base_price: { amount: doc.base_amount, currency: doc.base_currency },
    installments_allowed: doc.installments_allowed ?? false,
    stock: levelIn(levels, OWN_STOCK),
    variations: (doc.variations ?? []).map((v) => ({ ...v, stock: levelIn(levels, v.variation_id) })),
    shipping: doc.shipping ?? PRODUCT_DEFAULTS.shipping,
    active: doc.active ?? PRODUCT_DEFAULTS.active,
    archived_at: doc.archived_at ?? PRODUCT_DEFAULTS.archived_at,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

/** The stock levels of a record by key: its own (physical, limited) and each limited variation's. */
export function stockLevelsOf(p: Pick<ProductRecord, 'stock' | 'variations'>): Map<string, number> {
  const levels = new Map<string, number>();
  if (p.stock !== null) levels.set(OWN_STOCK, p.stock);
  for (const v of p.variations) if (v.stock !== null) levels.set(v.variation_id, v.stock);
  return levels;
}
