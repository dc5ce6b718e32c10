import type { Model } from 'mongoose';
import type { ProductDocument } from '../catalogue/product-document.repo';
import type { StockRepository } from './ports';

type StockFields = Pick<ProductDocument, 'stock_holds' | 'stock_returns'>;

/** Stock changes on the product document, each one conditional write (paths of maps, no arrays). */
export class MongoStockRepository implements StockRepository {
  constructor(private readonly model: Model<ProductDocument>) {}

  async hold(productId: number, key: string, quantity: number, holdId: string, now: Date) {
    const level = `stock_levels.${key}`;
    const hold = `stock_holds.${holdId}`;
    const res = await this.model
      .updateOne(
        { _id: productId, [level]: { $gte: quantity }, [hold]: { $exists: false } },
        { $inc: { [level]: -quantity }, $set: { [hold]: { key, quantity, at: now } } },
      )
      .exec();
    if (res.modifiedCount === 1) return 'held' as const;
    const doc = (await this.model.findById(productId, { stock_holds: 1 }).lean().exec()) as StockFields | null;
    return doc?.stock_holds?.[holdId] ? ('exists' as const) : ('short' as const);
  }

  async release(productId: number, holdId: string) {
    const doc = (await this.model.findById(productId, { stock_holds: 1 }).lean().exec()) as StockFields | null;
    const held = doc?.stock_holds?.[holdId];
    if (!held) return false;
    const path = `stock_holds.${holdId}`;
    const res = await this.model
      .updateOne(
        { _id: productId, [`${path}.quantity`]: held.quantity },
        { $inc: { [`stock_levels.${held.key}`]: held.quantity }, $unset: { [path]: '' } },
      )
      .exec();
    return res.modifiedCount === 1;
  }

  async commit(productId: number, holdId: string) {
    await this.model.updateOne({ _id: productId }, { $unset: { [`stock_holds.${holdId}`]: '' } }).exec();
  }

  async giveBack(productId: number, key: string, quantity: number, returnId: string, now: Date, forgetBefore: Date) {
    const doc = (await this.model.findById(productId, { stock_returns: 1 }).lean().exec()) as StockFields | null;
    const stale = Object.entries(doc?.stock_returns ?? {})
      .filter(([, at]) => new Date(at) < forgetBefore)
      .map(([id]) => [`stock_returns.${id}`, '']);
    const level = `stock_levels.${key}`;
    const res = await this.model
      .updateOne(
        { _id: productId, [level]: { $exists: true }, [`stock_returns.${returnId}`]: { $exists: false } },
        {
          $inc: { [level]: quantity },
          $set: { [`stock_returns.${returnId}`]: now },
          ...(stale.length ? { $unset: Object.fromEntries(stale) } : {}),
        },
      )
      .exec();
    return res.modifiedCount === 1;
  }
}
