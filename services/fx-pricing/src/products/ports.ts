import type { Mode } from '@ppay/kernel';
import type { ProductRecord } from '../catalogue/product';
import type { ProductFields } from './product-input';

/** GET /products: newest first, after the cursor (a list key: creation time and id). */
export interface ProductListQuery {
  type?: string;
  active?: boolean;
  after?: string;
  limit: number;
}

/** Stock levels a change sets absolutely (by key: `_` or a variation id) and those it makes unlimited. */
export interface StockLevelChange {
  set: Record<string, number>;
  unset: string[];
}

/** Partner-managed products in fx-pricing's `products` collection (the catalogue's, seeded ones too). */
export interface ProductRepository {
  nextId(): Promise<number>;
  insert(product: ProductRecord): Promise<void>;
  find(merchantId: number, productId: number): Promise<ProductRecord | null>;
  /** The merchant's listed products of one mode (seeded ones are listed in sandbox), newest first. */
  list(merchantId: number, mode: Mode, query: ProductListQuery): Promise<ProductRecord[]>;
  /** Products listed for the merchant in the mode (the per-mode quota). */
  countListed(merchantId: number, mode: Mode): Promise<number>;
  /**
   * Writes the product's fields and the stock levels the change names, iff it was not updated since
   * `expectedUpdatedAt` (the caller re-reads and merges again); other stock levels are left alone, so a
   * concurrent checkout's hold is never overwritten. null when someone else changed it first.
   */
  update(
    productId: number,
    expectedUpdatedAt: Date,
    fields: ProductFields & Pick<ProductRecord, 'archived_at'>,
    stock: StockLevelChange,
    now: Date,
  ): Promise<ProductRecord | null>;
  /** stock_levels[key] += delta iff the level exists (limited) and stays ≥ 0; null otherwise. */
  adjustStock(productId: number, key: string, delta: number, now: Date): Promise<ProductRecord | null>;
}
