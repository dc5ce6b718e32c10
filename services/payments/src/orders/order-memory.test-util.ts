import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { OrderRecord } from './order';
import { orderListKey } from './orders';
import type { OrderListQuery, OrderRepository, StockReturns } from './ports';

const clone = <T>(v: T): T => structuredClone(v);

/** Orders in memory, with the Mongo repository's conditions (unique per charge, compare-and-set). */
export class MemoryOrders implements OrderRepository {
  readonly docs = new Map<string, OrderRecord>();
  readonly events: OutboxEntry[] = [];
  async insertOrGetForCharge(order: OrderRecord, events: OutboxEntry[]) {
    const taken = [...this.docs.values()].find((o) => o.charge_id === order.charge_id);
    if (taken) return { order: clone(taken), created: false };
    this.docs.set(order.order_id, clone(order));
    this.events.push(...events);
    return { order: clone(order), created: true };
  }
  async findForMerchant(merchantId: number, mode: Mode, id: string) {
    const o = this.docs.get(id);
    return o && o.merchant_id === merchantId && o.mode === mode ? clone(o) : null;
  }
  async replace(
    expected: Pick<OrderRecord, 'order_id' | 'status' | 'version'>,
    next: OrderRecord,
    events: OutboxEntry[],
  ) {
    const o = this.docs.get(expected.order_id);
    if (!o || o.status !== expected.status || o.version !== expected.version) return null;
    const written = { ...clone(next), version: expected.version + 1 };
    this.docs.set(o.order_id, written);
    this.events.push(...events);
    return clone(written);
  }
  async list(merchantId: number, mode: Mode, q: OrderListQuery) {
    return [...this.docs.values()]
      .filter((o) => o.merchant_id === merchantId && o.mode === mode)
      .filter((o) => (!q.status || o.status === q.status) && (!q.product_id || o.product.id === q.product_id))
      .filter((o) => (!q.from || o.created_at >= q.from) && (!q.to || o.created_at < q.to))
      .filter((o) => !q.after || orderListKey(o) < q.after)
      .sort((a, b) => (orderListKey(a) < orderListKey(b) ? 1 : -1))
      .slice(0, q.limit)
      .map(clone);
  }
  async countPaidBefore(before: Date) {
    return [...this.docs.values()].filter((o) => o.status === 'paid' && o.created_at < before).length;
  }
  async unfinished(before: Date, limit: number) {
    return [...this.docs.values()]
      .filter((o) => (o.status === 'cancelling' || o.stock_return === 'pending') && o.updated_at <= before)
      .slice(0, limit)
      .map(clone);
  }
}

/** Stock returns counted per order, as fx-pricing's idempotent return would take them. */
export class FakeStockReturns implements StockReturns {
  readonly returned = new Map<string, number>();
  fail = false;
  async returnStock(order: Pick<OrderRecord, 'order_id' | 'quantity'>) {
    if (this.fail) throw new Error('fx-pricing unavailable');
    this.returned.set(order.order_id, order.quantity);
  }
}
