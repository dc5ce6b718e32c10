import type { Model } from 'mongoose';
import { isSafeKey } from '@ppay/kernel';
import { ownEntry, stockLevelPath, type ProductDocument } from '../catalogue/product-document.repo';
import type { ReturnMemory, StockRepository } from './ports';
import { returnsToForget } from './stock';

type StockFields = Pick<ProductDocument, 'stock_holds' | 'stock_returns'>;

/** `stock_holds.<id>` or `stock_returns.<id>`: ids the service checked, checked again before they are a path. */
function entryPath(map: 'stock_holds' | 'stock_returns', id: string): string {
  if (!isSafeKey(id)) throw new Error(`not a ${map} key: ${JSON.stringify(id)}`);
  return `${map}.${id}`;
}

/** Stock changes on the product document, each one conditional write (paths of maps, no arrays). */
export class MongoStockRepository implements StockRepository {
  constructor(private readonly model: Model<ProductDocument>) {}

  async hold(productId: number, key: string, quantity: number, holdId: string, now: Date) {
    const level = stockLevelPath(key);
    const hold = entryPath('stock_holds', holdId);
    const res = await this.model
      .updateOne(
        { _id: productId, [level]: { $gte: quantity }, [hold]: { $exists: false } },
        { $inc: { [level]: -quantity }, $set: { [hold]: { key, quantity, at: now } } },
      )
      .exec();
    if (res.modifiedCount === 1) return 'held' as const;
    const doc = (await this.model.findById(productId, { stock_holds: 1 }).lean().exec()) as StockFields | null;
    return ownEntry(doc?.stock_holds, holdId) ? ('exists' as const) : ('short' as const);
  }

  async release(productId: number, holdId: string) {
    const path = entryPath('stock_holds', holdId);
    const doc = (await this.model.findById(productId, { stock_holds: 1 }).lean().exec()) as StockFields | null;
    const held = ownEntry(doc?.stock_holds, holdId);
    if (!held) return false;
    const res = await this.model
      .updateOne(
        { _id: productId, [`${path}.quantity`]: held.quantity },
        { $inc: { [stockLevelPath(held.key)]: held.quantity }, $unset: { [path]: '' } },
      )
      .exec();
    return res.modifiedCount === 1;
  }

  async commit(productId: number, holdId: string) {
    await this.model.updateOne({ _id: productId }, { $unset: { [entryPath('stock_holds', holdId)]: '' } }).exec();
  }

  async giveBack(productId: number, key: string, quantity: number, returnId: string, now: Date, memory: ReturnMemory) {
    const path = entryPath('stock_returns', returnId);
    const doc = (await this.model.findById(productId, { stock_returns: 1 }).lean().exec()) as StockFields | null;
    const returns = Object.entries(doc?.stock_returns ?? {}).filter(([id]) => id !== returnId && isSafeKey(id));
    const forget = returnsToForget(returns, memory).map((id) => [entryPath('stock_returns', id), '']);
    const level = stockLevelPath(key);
    const res = await this.model
      .updateOne(
        { _id: productId, [level]: { $exists: true }, [path]: { $exists: false } },
        {
          $inc: { [level]: quantity },
          $set: { [path]: now },
          ...(forget.length ? { $unset: Object.fromEntries(forget) } : {}),
        },
      )
      .exec();
    return res.modifiedCount === 1;
  }
}
