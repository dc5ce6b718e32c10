import type { Mode } from '@ppay/kernel';
import { OWN_STOCK, type ProductRecord } from '../catalogue/product';
import { stockLevelsOf } from '../catalogue/product-document.repo';
import type { ProductFields } from './product-input';
import { productListKey } from './products';
import type { ProductListQuery, ProductRepository, StockLevelChange } from './ports';

const clone = <T>(v: T): T => structuredClone(v);

/** Products in memory with the Mongo repository's conditions; stock levels kept apart as it stores them. */
export class MemoryProducts implements ProductRepository {
  readonly docs = new Map<number, { product: ProductRecord; levels: Record<string, number>; listed: boolean }>();
  seq = 0;

  async nextId() {
    return ++this.seq;
  }
  async insert(product: ProductRecord) {
    this.docs.set(product.id, {
      product: clone(product),
      levels: stockLevelsOf(product),
      listed: !product.archived_at,
    });
  }
  private read(id: number): ProductRecord | null {
    const d = this.docs.get(id);
    if (!d) return null;
    const p = clone(d.product);
    return {
      ...p,
      stock: d.levels[OWN_STOCK] ?? null,
      variations: p.variations.map((v) => ({ ...v, stock: d.levels[v.variation_id] ?? null })),
    };
  }
  async find(merchantId: number, id: number) {
    const p = this.read(id);
    return p && p.merchant_id === merchantId ? p : null;
  }
  async list(merchantId: number, mode: Mode, q: ProductListQuery) {
    return [...this.docs.values()]
      .filter((d) => d.listed && d.product.merchant_id === merchantId && (d.product.mode ?? 'sandbox') === mode)
      .map((d) => this.read(d.product.id)!)
      .filter((p) => (!q.type || p.type === q.type) && (q.active === undefined || p.active === q.active))
      .filter((p) => !q.after || productListKey(p) < q.after)
      .sort((a, b) => (productListKey(a) < productListKey(b) ? 1 : -1))
      .slice(0, q.limit);
  }
  async countListed(merchantId: number, mode: Mode) {
    return (await this.list(merchantId, mode, { limit: Number.MAX_SAFE_INTEGER })).length;
  }
  async update(
    id: number,
    expected: Date,
    fields: ProductFields & Pick<ProductRecord, 'archived_at'>,
    stock: StockLevelChange,
    now: Date,
  ) {
    const d = this.docs.get(id);
    if (!d || d.product.updated_at.getTime() !== expected.getTime()) return null;
    Object.assign(d.product, clone(fields), { updated_at: now });
    if (fields.archived_at) d.listed = false;
    Object.assign(d.levels, stock.set);
    for (const key of stock.unset) delete d.levels[key];
    return this.read(id);
  }
  async adjustStock(id: number, key: string, delta: number, now: Date) {
    const d = this.docs.get(id);
    const level = d?.levels[key];
    if (!d || level === undefined || level + delta < 0) return null;
    d.levels[key] = level + delta;
    d.product.updated_at = now;
    return this.read(id);
  }
}
