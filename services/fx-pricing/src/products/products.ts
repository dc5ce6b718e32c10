import { PlatformError, prefixedId, type Mode } from '@ppay/kernel';
import { OWN_STOCK, productNotFound, type ProductRecord } from '../catalogue/product';
import {
  checkVariationId,
  validateProductInput,
  type ProductFields,
  type ProductInput,
  type VariationInput,
} from './product-input';
import type { ProductRepository, StockLevelChange } from './ports';

/** Products a merchant may list per mode (archived ones do not count). */
export const MAX_PRODUCTS_PER_MODE = 10_000;

/** PATCH /products/{id}: any field, and stock set absolutely (`stock`) or moved by `stock_adjustment`. */
export type ProductPatch = Partial<ProductInput> & {
  /** Added to the stock of the product, or of `variation_id` (negative takes away; never below 0). */
  stock_adjustment?: number;
  variation_id?: string;
};

export interface ProductPage {
  products: ProductRecord[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The position of a product in its merchant's list, newest first: creation time, then id. */
export function productListKey(p: Pick<ProductRecord, 'created_at' | 'id'>): string {
  return `${p.created_at.toISOString()}|${String(p.id).padStart(16, '0')}`;
}

function decodeCursor(cursor: string): string {
  const key = cursor.length <= 200 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\|\d{16}$/.test(key)) {
    throw new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' });
  }
  return key;
}

/** A product as input again, for merging a PATCH into it. */
function inputOf(p: ProductRecord): ProductInput {
  return {
    title: p.name,
    description: p.description,
    type: p.type,
    price: p.base_price,
    variations: p.variations,
    stock: p.stock,
    shipping: p.shipping,
    active: p.active,
    installments_allowed: p.installments_allowed,
  };
}

/**
 * A merchant's own catalogue (POST/GET/PATCH/DELETE /products), per mode: a sandbox key manages sandbox
 * products, a live key live ones. Products from the seed file (mode null) are readable in both modes and
 * read-only. Pricing (4.4) and price rules treat every product alike (catalogue/).
 */
export class ProductService {
  constructor(
    private readonly repo: ProductRepository,
    private readonly pricedIn: (currency: string) => boolean,
    private readonly options: { maxRounds?: number } = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(merchantId: number, mode: Mode, input: ProductInput): Promise<ProductRecord> {
    const fields = validateProductInput(input, this.pricedIn, () => prefixedId('var', 16));
    if ((await this.repo.countListed(merchantId, mode)) >= MAX_PRODUCTS_PER_MODE) {
      throw new PlatformError('PRODUCT_LIMIT_REACHED', undefined, {
        detail: `at most ${MAX_PRODUCTS_PER_MODE} products per mode; archive some first`,
      });
    }
    const now = this.now();
    const product: ProductRecord = {
      id: await this.repo.nextId(),
      merchant_id: merchantId,
      mode,
      ...fields,
      archived_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.repo.insert(product);
    return product;
  }

  /** The merchant's product in this mode (or a seeded one); anyone else's is 404. */
  async get(merchantId: number, mode: Mode, productId: number): Promise<ProductRecord> {
    const p = await this.repo.find(merchantId, productId);
    if (!p || (p.mode !== null && p.mode !== mode)) throw productNotFound();
    return p;
  }

  async list(
    merchantId: number,
    mode: Mode,
    q: { type?: string; active?: boolean; limit?: number; cursor?: string },
  ): Promise<ProductPage> {
    const limit = Math.min(Math.max(q.limit ?? 20, 1), 100);
    const read = await this.repo.list(merchantId, mode, {
      type: q.type,
      active: q.active,
      after: q.cursor ? decodeCursor(q.cursor) : undefined,
      limit: limit + 1,
    });
    const products = read.slice(0, limit);
    const last = products[products.length - 1];
    const more = read.length > limit;
    return {
      products,
      has_more: more,
      next_cursor: more && last ? Buffer.from(productListKey(last)).toString('base64url') : null,
    };
  }

  /** PATCH: the fields given replace the product's (checked together), then any stock adjustment. */
  async update(merchantId: number, mode: Mode, productId: number, patch: ProductPatch): Promise<ProductRecord> {
    const { stock_adjustment, variation_id, ...changes } = patch;
    let product = await this.editable(merchantId, mode, productId);
    if (Object.keys(changes).length) product = await this.change(product, changes);
    if (stock_adjustment !== undefined) product = await this.adjust(product, stock_adjustment, variation_id);
    return product;
  }

  /** DELETE: archived, inactive, no longer listed or sold; kept for orders and reports. Repeats answer the same. */
  async archive(merchantId: number, mode: Mode, productId: number): Promise<ProductRecord> {
    const product = await this.editable(merchantId, mode, productId);
    if (product.archived_at) return product;
    return this.change(product, { active: false }, true);
  }

  private async editable(merchantId: number, mode: Mode, productId: number): Promise<ProductRecord> {
    const product = await this.get(merchantId, mode, productId);
    if (product.mode === null) {
      throw new PlatformError('PRODUCT_READ_ONLY', undefined, { param: 'product_id' });
    }
    return product;
  }

  private async change(current: ProductRecord, changes: Partial<ProductInput>, archive = false) {
    let product = current;
    for (let round = 0; round < (this.options.maxRounds ?? 20); round++) {
      if (product.archived_at && !archive) {
        throw new PlatformError('PRODUCT_ARCHIVED', undefined, { param: 'product_id' });
      }
      const merged: ProductInput = { ...inputOf(product), ...changes };
      const fields: ProductFields = validateProductInput(merged, this.pricedIn, () => prefixedId('var', 16));
      const stock = stockChangeOf(product, changes, fields);
      await this.refuseWhileHeld(product.id, stock);
      const now = this.now();
      const written = await this.repo.update(
        product.id,
        product.updated_at,
        { ...fields, archived_at: archive ? now : product.archived_at },
        stock,
        now,
      );
      if (written) return written;
      product = await this.get(product.merchant_id, product.mode!, product.id);
    }
    throw new PlatformError('CONFLICT', 'This product is being changed by concurrent requests; retry', {
      param: 'product_id',
    });
  }

  /**
   * An absolute stock level (set, made unlimited, removed with its variation) is refused while a
   * checkout holds units of it: the hold's release would add its units to a level that never counted
   * them. The write is conditional on the levels read before this check, so a hold taken after it
   * fails the write and the next round sees it here.
   */
  private async refuseWhileHeld(productId: number, stock: StockLevelChange): Promise<void> {
    if (stock.expected.size === 0) return;
    const held = await this.repo.heldKeys(productId);
    const key = [...stock.expected.keys()].find((k) => held.has(k));
    if (key === undefined) return;
    throw new PlatformError('STOCK_HELD', undefined, {
      param: key === OWN_STOCK ? 'stock' : 'variations',
      detail:
        `units of ${key === OWN_STOCK ? 'this product' : `variation ${key}`} are held by a checkout in progress; ` +
        'retry once it settles (seconds), or move the stock with stock_adjustment',
    });
  }

  private async adjust(product: ProductRecord, delta: number, variationId: string | undefined) {
    if (!Number.isSafeInteger(delta) || delta === 0 || Math.abs(delta) > 1_000_000_000) {
      throw new PlatformError('VALIDATION_FAILED', 'stock_adjustment must be a non-zero whole number', {
        param: 'stock_adjustment',
      });
    }
    if (variationId !== undefined) checkVariationId(variationId, 'variation_id');
    const variation = variationId ? product.variations.find((v) => v.variation_id === variationId) : undefined;
    if (variationId && !variation) {
      throw new PlatformError('VALIDATION_FAILED', `no variation ${variationId} on this product`, {
        param: 'variation_id',
      });
    }
    if (!variationId && product.variations.length) {
      throw new PlatformError('VALIDATION_FAILED', 'this product keeps its stock per variation: name variation_id', {
        param: 'variation_id',
      });
    }
    const level = variation ? variation.stock : product.stock;
    if (level === null) {
      throw new PlatformError('STOCK_UNLIMITED', undefined, {
        param: 'stock_adjustment',
        detail: 'set a stock level first (stock, or the variation’s stock)',
      });
    }
    const adjusted = await this.repo.adjustStock(product.id, variationId ?? OWN_STOCK, delta, this.now());
    if (adjusted) return adjusted;
    throw new PlatformError('STOCK_INSUFFICIENT', undefined, {
      param: 'stock_adjustment',
      detail: `the stock cannot go below 0 (it was ${level} when read)`,
    });
  }
}

/**
 * The stock levels a change sets: only those it names (`stock`, a variation's `stock`), so a checkout's
 * hold taken meanwhile is never overwritten; removed variations lose theirs. Each is conditional on
 * the level read.
 */
function stockChangeOf(
  product: ProductRecord,
  changes: Partial<ProductInput>,
  fields: ProductFields,
): StockLevelChange {
  const set = new Map<string, number>();
  const unset: string[] = [];
  const expected = new Map<string, number | null>();
  const levelRead = (key: string) =>
    key === OWN_STOCK ? product.stock : (product.variations.find((v) => v.variation_id === key)?.stock ?? null);
  const write = (key: string, level: number | null) => {
    if (level === null) unset.push(key);
    else set.set(key, level);
    expected.set(key, levelRead(key));
  };
  if (changes.stock !== undefined || (changes.type !== undefined && changes.type !== 'physical')) {
    write(OWN_STOCK, fields.stock);
  }
  if (changes.variations !== undefined) {
    const given = new Map((changes.variations as VariationInput[]).map((v) => [v.variation_id, v]));
    for (const v of fields.variations) {
      const input = given.get(v.variation_id);
      const named = input !== undefined ? input.stock !== undefined : true; // a new variation sets its own
      if (named) write(v.variation_id, v.stock);
    }
    const kept = new Set(fields.variations.map((v) => v.variation_id));
    for (const v of product.variations) if (!kept.has(v.variation_id)) write(v.variation_id, null);
  }
  return { set, unset, expected };
}
