import { Schema, type Connection, type FilterQuery, type Model } from 'mongoose';
import type { Mode, OutboxEntry } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN, isDuplicateKeyError, outboxEntrySchema, withoutRelayFields } from '@ppay/runtime';
import { listKeyRange } from '../list-pages';
import { isOrderParty, type OrderRecord } from './order';
import { orderListKey } from './orders';
import type { OrderListQuery, OrderRepository } from './ports';

interface OrderDocument extends Omit<OrderRecord, 'order_id'> {
  _id: string;
  /** Position in the merchant's list, newest first (`created_at|id`). */
  list_key: string;
  /** The product's id as a scalar the list filter can use (null for a product sold by name). */
  product_id: number | null;
  /** A marketplace sale's operator as a scalar its list can use (null for a merchant's own sale). */
  operator_id: number | null;
  /** Whether the order has work left (a cancel, a stock return): the sweep's index. */
  unfinished: boolean;
  outbox: OutboxEntry[];
}

const orderSchema = new Schema<OrderDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    status: { type: String, required: true },
    product: { type: Schema.Types.Mixed, required: true },
    product_id: { type: Number, default: null },
    variation: { type: Schema.Types.Mixed, default: null },
    quantity: { type: Number, required: true },
    amount: { type: Schema.Types.Mixed, required: true },
    shipping_address: { type: Schema.Types.Mixed, required: true },
    customer: { type: Schema.Types.Mixed, required: true },
    charge_id: { type: String, required: true, unique: true },
    session_id: { type: String, required: true },
    split: { type: Schema.Types.Mixed, default: null },
    operator_id: { type: Number, default: null },
    fulfilments: { type: Schema.Types.Mixed, default: [] },
    cancellation: { type: Schema.Types.Mixed, default: null },
    refund_attempts: { type: Number, default: 0 },
    stock_return: { type: String, required: true },
    delivered_at: { type: Date, default: null },
    version: { type: Number, required: true },
    list_key: { type: String, required: true },
    unfinished: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'orders', minimize: false },
);
// GET /orders: a range of one merchant's list keys, with or without a status or product.
orderSchema.index({ merchant_id: 1, mode: 1, list_key: -1 });
orderSchema.index({ merchant_id: 1, mode: 1, status: 1, list_key: -1 });
orderSchema.index({ merchant_id: 1, mode: 1, product_id: 1, list_key: -1 });
// An operator's marketplace orders, all or one sub-merchant's.
orderSchema.index({ operator_id: 1, mode: 1, list_key: -1 });
orderSchema.index({ operator_id: 1, mode: 1, merchant_id: 1, list_key: -1 });
// Paid orders waiting too long to be fulfilled (the overdue gauge).
orderSchema.index({ status: 1, created_at: 1 });
// The sweep: cancels and stock returns a crash left unfinished.
orderSchema.index({ unfinished: 1, updated_at: 1 });

export type OrderModel = Model<OrderDocument>;

export function orderModel(conn: Connection): OrderModel {
  return conn.model<OrderDocument>('Order', orderSchema);
}

function documentOf(o: OrderRecord): Omit<OrderDocument, 'outbox'> {
  const { order_id, ...rest } = o;
  return {
    _id: order_id,
    ...rest,
    list_key: orderListKey(o),
    product_id: o.product.id,
    operator_id: o.split?.operator_id ?? null,
    unfinished: o.status === 'cancelling' || o.stock_return === 'pending',
  };
}

function toRecord(doc: OrderDocument): OrderRecord {
  const {
    _id,
    list_key: _k,
    product_id: _p,
    operator_id: _o,
    unfinished: _u,
    ...rest
  } = withoutRelayFields(doc as OrderDocument & { outbox_pending_since?: Date | null });
  // Orders stored before refund attempts were counted read as 0 (refundKeyOf).
  return { order_id: _id, ...rest, split: rest.split ?? null, refund_attempts: rest.refund_attempts ?? 0 };
}

const NO_OUTBOX = { outbox: 0 };

export class MongoOrderRepository implements OrderRepository {
  /** `afterWrite` is told which order gained outbox events (the relay's fast path). */
  constructor(
    readonly model: OrderModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async insertOrGetForCharge(order: OrderRecord, events: OutboxEntry[]) {
    try {
      await this.model.create({ ...documentOf(order), outbox: events });
      this.afterWrite(order.order_id);
      return { order, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    const doc = (await this.model
      .findOne({ charge_id: order.charge_id }, NO_OUTBOX)
      .lean()
      .exec()) as OrderDocument | null;
    if (!doc) throw new Error(`order of ${order.charge_id} refused as a duplicate but not found`);
    return { order: toRecord(doc), created: false };
  }

  async findForParty(merchantId: number, mode: Mode, orderId: string) {
    const doc = (await this.model.findOne({ _id: orderId, mode }, NO_OUTBOX).lean().exec()) as OrderDocument | null;
    const order = doc && toRecord(doc);
    return order && isOrderParty(order, merchantId) ? order : null;
  }

  async replace(
    expected: Pick<OrderRecord, 'order_id' | 'status' | 'version'>,
    next: OrderRecord,
    events: OutboxEntry[],
  ) {
    const { _id, ...fields } = documentOf({ ...next, version: expected.version + 1 });
    // No projection: FerretDB refuses one on findAndModify.
    const doc = (await this.model
      .findOneAndUpdate(
        { _id: expected.order_id, status: expected.status, version: expected.version },
        { $set: fields, ...(events.length ? { $push: { outbox: { $each: events } } } : {}) },
        { new: true },
      )
      .lean()
      .exec()) as OrderDocument | null;
    if (!doc) return null;
    if (events.length) this.afterWrite(_id);
    return toRecord(doc);
  }

  /**
   * Two index ranges merged by list key (no `$or`, which FerretDB cannot push down): the orders the
   * merchant sells, and those sold for its sub-merchants when it is an operator (none otherwise).
   */
  async list(merchantId: number, mode: Mode, q: OrderListQuery) {
    const common: FilterQuery<OrderDocument> = { mode, list_key: listKeyRange(q) };
    if (q.status) common.status = q.status;
    if (q.product_id) common.product_id = q.product_id;
    const marketplace = {
      ...common,
      operator_id: merchantId,
      ...(q.sub_merchant_id ? { merchant_id: q.sub_merchant_id } : {}),
    };
    const ranges = q.sub_merchant_id ? [marketplace] : [{ ...common, merchant_id: merchantId }, marketplace];
    const pages = await Promise.all(ranges.map((filter) => this.page(filter, q.limit)));
    return pages
      .flat()
      .sort((a, b) => (a.list_key < b.list_key ? 1 : -1))
      .slice(0, q.limit)
      .map(toRecord);
  }

  private async page(filter: FilterQuery<OrderDocument>, limit: number) {
    return (await this.model
      .find(filter, NO_OUTBOX)
      .sort({ list_key: -1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN) // equality and one range on scalar fields, sorted on the index
      .lean()
      .exec()) as OrderDocument[];
  }

  async countPaidBefore(before: Date) {
    const res = (await this.model.db.db!.command({
      count: this.model.collection.collectionName,
      query: { status: 'paid', created_at: { $lt: before } },
      comment: FERRETDB_SQL_PUSHDOWN,
    })) as { n: number };
    return res.n;
  }

  async unfinished(before: Date, limit: number) {
    const docs = (await this.model
      .find({ unfinished: true, updated_at: { $lte: before } }, NO_OUTBOX)
      .sort({ updated_at: 1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec()) as OrderDocument[];
    return docs.map(toRecord);
  }
}
