import { Schema, type Connection, type Model } from 'mongoose';
import { PlatformError } from '@ppay/kernel';
import { isDuplicateKeyError, nextSequence } from '@ppay/runtime';
import type { CatalogueRepository } from './ports';
import type { PriceRuleRecord } from './price-rule';
import type { ProductRecord, ProductType } from './product';

interface ProductDocument {
  _id: number;
  merchant_id: number;
  name: string;
  type: ProductType;
  base_amount: number;
  base_currency: string;
  /** Absent on products stored before installment plans: false. */
  installments_allowed?: boolean;
  created_at: Date;
  updated_at: Date;
}

interface PriceRuleDocument extends PriceRuleRecord {
  /** `<merchant>:<product or 0>:<country>` — one rule per key, so upserts are idempotent. */
  _id: string;
}

const productSchema = new Schema<ProductDocument>(
  {
    _id: { type: Number, required: true },
    merchant_id: { type: Number, required: true, index: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    base_amount: { type: Number, required: true },
    base_currency: { type: String, required: true },
    installments_allowed: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'products' },
);

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

function toProduct({
  _id,
  base_amount,
  base_currency,
  installments_allowed,
  ...product
}: ProductDocument): ProductRecord {
  return {
    id: _id,
    ...product,
    base_price: { amount: base_amount, currency: base_currency },
    installments_allowed: installments_allowed ?? false,
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

  async upsertProduct(product: Omit<ProductRecord, 'created_at' | 'updated_at'>, now: Date): Promise<ProductRecord> {
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
            $setOnInsert: { created_at: now },
          },
          { upsert: true, new: true },
        )
        .lean()
        .exec();
      return toProduct(doc as ProductDocument);
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

  async listProducts(merchantId: number, skip: number, limit: number) {
    const [docs, total] = await Promise.all([
      this.products.find({ merchant_id: merchantId }).sort({ _id: 1 }).skip(skip).limit(limit).lean().exec(),
      this.products.countDocuments({ merchant_id: merchantId }).exec(),
    ]);
    return { items: docs.map((d) => toProduct(d as ProductDocument)), total };
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
