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

/**
 * Stock levels a change sets absolutely (by key: `_` or a variation id) and those it makes unlimited
 * (or removes with their variation), each conditional on the level it was computed from.
 */
export interface StockLevelChange {
  set: Map<string, number>;
  unset: string[];
  /** Every key above: its level when the product was read (null: unlimited, or no such level yet). */
  expected: Map<string, number | null>;
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
   * `expectedUpdatedAt` and every level the change names is still its `expected` one (a checkout's hold
   * or a return moves a level without touching `updated_at`); the caller re-reads and merges again.
   * Other stock levels are left alone. null when someone else changed it first.
   */
  update(
    productId: number,
    expectedUpdatedAt: Date,
    fields: ProductFields & Pick<ProductRecord, 'archived_at'>,
    stock: StockLevelChange,
    now: Date,
  ): Promise<ProductRecord | null>;
  /** The stock level keys that units are held from by checkouts in progress (`stock_holds`). */
  heldKeys(productId: number): Promise<Set<string>>;
  /** stock_levels[key] += delta iff the level exists (limited) and stays ≥ 0; null otherwise. */
  adjustStock(productId: number, key: string, delta: number, now: Date): Promise<ProductRecord | null>;
}
