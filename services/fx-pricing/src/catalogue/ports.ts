import type { PriceRuleRecord } from './price-rule';
import type { ProductRecord } from './product';

/** Ports only the catalogue uses. */

/** What the seed file (and the admin upsert) sets of a product; the rest keeps its defaults. */
export type SeededProduct = Pick<
  ProductRecord,
  'id' | 'merchant_id' | 'name' | 'type' | 'base_price' | 'installments_allowed'
>;

export interface CatalogueRepository {
  nextProductId(): Promise<number>;
  /** Makes sure later `nextProductId` calls return ids above `id` (after seeding explicit ids). */
  reserveProductIds(id: number): Promise<void>;
  /** Creates or replaces product `id` of `merchant_id`; ALREADY_EXISTS when the id belongs to another merchant. */
  upsertProduct(product: SeededProduct, now: Date): Promise<ProductRecord>;
  findProduct(merchantId: number, productId: number): Promise<ProductRecord | null>;
  upsertRule(rule: Omit<PriceRuleRecord, 'updated_at'>, now: Date): Promise<PriceRuleRecord>;
  /** Rules of the merchant for the country: the product's own and the merchant-wide one (product_id 0). */
  findRules(merchantId: number, productId: number, country: string): Promise<PriceRuleRecord[]>;
}
