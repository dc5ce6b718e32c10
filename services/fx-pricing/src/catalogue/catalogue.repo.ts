import { Schema, type Connection, type Model } from 'mongoose';
import { PlatformError } from '@ppay/kernel';
import { isDuplicateKeyError, nextSequence } from '@ppay/runtime';
import { productListKey } from '../products/products';
import type { CatalogueRepository, SeededProduct } from './ports';
import type { PriceRuleRecord } from './price-rule';
import type { ProductRecord } from './product';
import { NEW_PRODUCT_FIELDS, productSchema, toProduct, type ProductDocument } from './product-document.repo';

interface PriceRuleDocument extends PriceRuleRecord {
  /** `<merchant>:<product or 0>:<country>` — one rule per key, so upserts are idempotent. */
  _id: string;
}

const priceRuleSchema = new Schema<PriceRuleDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    product_id: { type: Number, required: true },
    country: { type: String, required: true },
    percentage: { type: String, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'price_rules' },
);
priceRuleSchema.index({ merchant_id: 1, country: 1 });

export const PRODUCT_SEQUENCE = 'product';

export function catalogueModels(conn: Connection) {
  return {
    products: conn.model<ProductDocument>('Product', productSchema),
    rules: conn.model<PriceRuleDocument>('PriceRule', priceRuleSchema),
  };
}

function toRule({ _id, ...rule }: PriceRuleDocument): PriceRuleRecord {
  return rule;
}

export class MongoCatalogueRepository implements CatalogueRepository {
  constructor(
    private readonly conn: Connection,
    readonly products: Model<ProductDocument>,
    readonly rules: Model<PriceRuleDocument>,
  ) {}

  nextProductId(): Promise<number> {
    return nextSequence(this.conn, PRODUCT_SEQUENCE);
  }

  async reserveProductIds(id: number): Promise<void> {
    // nextSequence(start = 1) hands out seq; $max keeps it at or above every explicit id.
    await this.conn
      .collection('counters')
      .updateOne({ _id: PRODUCT_SEQUENCE as never }, { $max: { seq: id } }, { upsert: true });
  }

  async upsertProduct(product: SeededProduct, now: Date): Promise<ProductRecord> {
    try {
      const doc = await this.products
        .findOneAndUpdate(
          { _id: product.id, merchant_id: product.merchant_id },
          {
            $set: {
              name: product.name,
              type: product.type,
              base_amount: product.base_price.amount,
              base_currency: product.base_price.currency,
              installments_allowed: product.installments_allowed,
              updated_at: now,
            },
            $setOnInsert: { ...NEW_PRODUCT_FIELDS, created_at: now },
          },
          { upsert: true, new: true },
        )
        .lean()
        .exec();
      const saved = doc as ProductDocument;
      // A seeded product is listed (in sandbox) from its creation time, whenever it was first seeded.
      if (!saved.list_key && !saved.archived_at) {
        const list_key = productListKey({ id: saved._id, created_at: saved.created_at });
        await this.products.updateOne({ _id: saved._id, list_key: null }, { $set: { list_key } }).exec();
      }
      return toProduct(saved);
    } catch (err) {
      // The id exists under another merchant: the upsert's insert hits the _id index.
      if (isDuplicateKeyError(err)) {
        throw new PlatformError('ALREADY_EXISTS', `Product ${product.id} belongs to another merchant`, {
          param: 'id',
          cause: err,
        });
      }
      throw err;
    }
  }

  async findProduct(merchantId: number, productId: number): Promise<ProductRecord | null> {
    const doc = await this.products.findOne({ _id: productId, merchant_id: merchantId }).lean().exec();
    return doc ? toProduct(doc as ProductDocument) : null;
  }

  async upsertRule(rule: Omit<PriceRuleRecord, 'updated_at'>, now: Date): Promise<PriceRuleRecord> {
    const _id = `${rule.merchant_id}:${rule.product_id}:${rule.country}`;
    const doc = await this.rules
      .findOneAndUpdate({ _id }, { $set: { ...rule, updated_at: now } }, { upsert: true, new: true })
      .lean()
      .exec();
    return toRule(doc as PriceRuleDocument);
  }

  async findRules(merchantId: number, productId: number, country: string): Promise<PriceRuleRecord[]> {
    const ids = [`${merchantId}:${productId}:${country}`, `${merchantId}:0:${country}`];
    const docs = await this.rules
      .find({ _id: { $in: ids } })
      .lean()
      .exec();
    return docs.map((d) => toRule(d as PriceRuleDocument));
  }
}
