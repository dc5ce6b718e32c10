import type { Mode } from '@ppay/kernel';
import { OWN_STOCK, type ProductRecord } from '../catalogue/product';
import { stockLevelsOf } from '../catalogue/product-document.repo';
import type { ProductFields } from './product-input';
import { productListKey } from './products';
import type { ProductListQuery, ProductRepository, StockLevelChange } from './ports';
import type { ReturnMemory, StockRepository } from '../stock/ports';
import { returnsToForget } from '../stock/stock';

const clone = <T>(v: T): T => structuredClone(v);

interface MemoryDoc {
  product: ProductRecord;
  levels: Map<string, number>;
  holds: Map<string, { key: string; quantity: number }>;
  returns: Map<string, Date>;
  listed: boolean;
}

/**
 * Products in memory with the Mongo repositories' conditions (products/ and stock/ share the document);
 * stock levels, holds and returns kept apart as they are stored.
 */
export class MemoryProducts implements ProductRepository, StockRepository {
  readonly docs = new Map<number, MemoryDoc>();
  seq = 0;

  async nextId() {
    return ++this.seq;
  }
  async insert(product: ProductRecord) {
    this.docs.set(product.id, {
      product: clone(product),
      levels: stockLevelsOf(product),
      holds: new Map(),
      returns: new Map(),
      listed: !product.archived_at,
    });
  }
  private read(id: number): ProductRecord | null {
    const d = this.docs.get(id);
    if (!d) return null;
    const p = clone(d.product);
    return {
      ...p,
      stock: d.levels.get(OWN_STOCK) ?? null,
      variations: p.variations.map((v) => ({ ...v, stock: d.levels.get(v.variation_id) ?? null })),
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
    for (const [key, level] of stock.expected) if ((d.levels.get(key) ?? null) !== level) return null;
    Object.assign(d.product, clone(fields), { updated_at: now });
    if (fields.archived_at) d.listed = false;
    for (const [key, level] of stock.set) d.levels.set(key, level);
    for (const key of stock.unset) d.levels.delete(key);
    return this.read(id);
  }
  async heldKeys(id: number) {
    return new Set([...(this.docs.get(id)?.holds.values() ?? [])].map((h) => h.key));
  }
  async adjustStock(id: number, key: string, delta: number, now: Date) {
    const d = this.docs.get(id);
    const level = d?.levels.get(key);
    if (!d || level === undefined || level + delta < 0) return null;
    d.levels.set(key, level + delta);
    d.product.updated_at = now;
    return this.read(id);
  }

  async hold(id: number, key: string, quantity: number, holdId: string) {
    const d = this.docs.get(id)!;
    if (d.holds.has(holdId)) return 'exists' as const;
    const level = d.levels.get(key);
    if (level === undefined || level < quantity) return 'short' as const;
    d.levels.set(key, level - quantity);
    d.holds.set(holdId, { key, quantity });
    return 'held' as const;
  }
  async release(id: number, holdId: string) {
    const d = this.docs.get(id)!;
    const h = d.holds.get(holdId);
    if (!h) return false;
    d.holds.delete(holdId);
    d.levels.set(h.key, (d.levels.get(h.key) ?? 0) + h.quantity);
    return true;
  }
  async commit(id: number, holdId: string) {
    this.docs.get(id)?.holds.delete(holdId);
  }
  async giveBack(id: number, key: string, quantity: number, returnId: string, now: Date, memory: ReturnMemory) {
    const d = this.docs.get(id)!;
    const level = d.levels.get(key);
    if (level === undefined || d.returns.has(returnId)) return false;
    for (const forgotten of returnsToForget(d.returns, memory)) d.returns.delete(forgotten);
    d.levels.set(key, level + quantity);
    d.returns.set(returnId, now);
    return true;
  }
}
