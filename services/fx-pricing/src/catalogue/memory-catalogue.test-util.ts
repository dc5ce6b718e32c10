import { PlatformError } from '@ppay/kernel';
import type { CatalogueRepository, SeededProduct } from './ports';
import type { PriceRuleRecord } from './price-rule';
import { PRODUCT_DEFAULTS, type ProductRecord } from './product';

/** In-memory CatalogueRepository with the Mongo repository's semantics, for unit tests. */
export class MemoryCatalogueRepository implements CatalogueRepository {
  products = new Map<number, ProductRecord>();
  rules = new Map<string, PriceRuleRecord>();
  seq = 0;

  async nextProductId() {
    return ++this.seq;
  }
  async reserveProductIds(id: number) {
    this.seq = Math.max(this.seq, id);
  }
  async upsertProduct(p: SeededProduct, now: Date) {
    const existing = this.products.get(p.id);
    if (existing && existing.merchant_id !== p.merchant_id) throw new PlatformError('ALREADY_EXISTS');
    const saved: ProductRecord = {
      ...(existing ?? PRODUCT_DEFAULTS),
      ...p,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    this.products.set(p.id, saved);
    return saved;
  }
  async findProduct(merchantId: number, id: number) {
    const p = this.products.get(id);
    return p && p.merchant_id === merchantId ? p : null;
  }
  async upsertRule(rule: Omit<PriceRuleRecord, 'updated_at'>, now: Date) {
    const saved = { ...rule, updated_at: now };
    this.rules.set(`${rule.merchant_id}:${rule.product_id}:${rule.country}`, saved);
    return saved;
  }
  async findRules(merchantId: number, productId: number, country: string) {
    return [`${merchantId}:${productId}:${country}`, `${merchantId}:0:${country}`]
      .map((k) => this.rules.get(k))
      .filter((r): r is PriceRuleRecord => r !== undefined);
  }
}
