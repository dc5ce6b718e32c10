import type { Connection, Model } from 'mongoose';
import type { Mode } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN, nextSequence } from '@ppay/runtime';
import type { ProductRecord } from '../catalogue/product';
import { PRODUCT_SEQUENCE } from '../catalogue/catalogue.repo';
import { stockLevelPath, stockLevelsOf, toProduct, type ProductDocument } from '../catalogue/product-document.repo';
import type { ProductFields } from './product-input';
import { productListKey } from './products';
import type { ProductListQuery, ProductRepository, StockLevelChange } from './ports';

/** The mode a product is listed in: its own, or sandbox for a seeded one (demo data). */
export const listModeOf = (p: Pick<ProductRecord, 'mode'>): Mode => p.mode ?? 'sandbox';

function definitionOf(fields: ProductFields) {
  return {
    name: fields.name,
    description: fields.description,
    type: fields.type,
    base_amount: fields.base_price.amount,
    base_currency: fields.base_price.currency,
    variations: fields.variations.map(({ variation_id, name, price }) => ({ variation_id, name, price })),
    shipping: fields.shipping,
    active: fields.active,
    installments_allowed: fields.installments_allowed,
  };
}

export class MongoProductRepository implements ProductRepository {
  constructor(
    private readonly conn: Connection,
    readonly model: Model<ProductDocument>,
  ) {}

  nextId(): Promise<number> {
    return nextSequence(this.conn, PRODUCT_SEQUENCE);
  }

  async insert(p: ProductRecord): Promise<void> {
    const doc: ProductDocument = {
      _id: p.id,
      merchant_id: p.merchant_id,
      mode: p.mode,
      ...definitionOf(p),
      stock_levels: Object.fromEntries(stockLevelsOf(p)),
      archived_at: p.archived_at,
      list_key: productListKey(p),
      list_mode: listModeOf(p),
      created_at: p.created_at,
      updated_at: p.updated_at,
    };
    await this.model.create(doc);
  }

  async find(merchantId: number, productId: number): Promise<ProductRecord | null> {
    const doc = await this.model.findOne({ _id: productId, merchant_id: merchantId }).lean().exec();
    return doc ? toProduct(doc as ProductDocument) : null;
  }

  async list(merchantId: number, mode: Mode, q: ProductListQuery): Promise<ProductRecord[]> {
    // Archived products have no list key: the range leaves them out.
    const filter: Record<string, unknown> = {
      merchant_id: merchantId,
      list_mode: mode,
      list_key: q.after ? { $gt: '', $lt: q.after } : { $gt: '' },
    };
    if (q.type) filter.type = q.type;
    if (q.active !== undefined) filter.active = q.active;
    const docs = await this.model
      .find(filter)
      .sort({ list_key: -1 })
      .limit(q.limit)
      .comment(FERRETDB_SQL_PUSHDOWN) // equality and one range on scalar fields, sorted on the index
      .lean()
      .exec();
    return docs.map((d) => toProduct(d as ProductDocument));
  }

  async countListed(merchantId: number, mode: Mode): Promise<number> {
    const res = (await this.conn.db!.command({
      count: this.model.collection.collectionName,
      query: { merchant_id: merchantId, list_mode: mode, list_key: { $gt: '' } },
      comment: FERRETDB_SQL_PUSHDOWN,
    })) as { n: number };
    return res.n;
  }

  async update(
    productId: number,
    expectedUpdatedAt: Date,
    fields: ProductFields & Pick<ProductRecord, 'archived_at'>,
    stock: StockLevelChange,
    now: Date,
  ): Promise<ProductRecord | null> {
    const set: Record<string, unknown> = { ...definitionOf(fields), archived_at: fields.archived_at, updated_at: now };
    if (fields.archived_at) set.list_key = null;
    for (const [key, level] of stock.set) set[stockLevelPath(key)] = level;
    const unset = Object.fromEntries(stock.unset.map((key) => [stockLevelPath(key), '']));
    const filter: Record<string, unknown> = { _id: productId, updated_at: expectedUpdatedAt };
    for (const [key, level] of stock.expected) filter[stockLevelPath(key)] = level ?? { $exists: false };
    const doc = await this.model
      .findOneAndUpdate(filter, { $set: set, ...(stock.unset.length ? { $unset: unset } : {}) }, { new: true })
      .lean()
      .exec();
    return doc ? toProduct(doc as ProductDocument) : null;
  }

  async heldKeys(productId: number): Promise<Set<string>> {
    const doc = (await this.model.findById(productId, { stock_holds: 1 }).lean().exec()) as Pick<
      ProductDocument,
      'stock_holds'
    > | null;
    return new Set(Object.values(doc?.stock_holds ?? {}).map((hold) => hold.key));
  }

  async adjustStock(productId: number, key: string, delta: number, now: Date): Promise<ProductRecord | null> {
    const path = stockLevelPath(key);
    const doc = await this.model
      .findOneAndUpdate(
        { _id: productId, [path]: { $gte: Math.max(0, -delta) } },
        { $inc: { [path]: delta }, $set: { updated_at: now } },
        { new: true },
      )
      .lean()
      .exec();
    return doc ? toProduct(doc as ProductDocument) : null;
  }
}
