import type { Mode, OrderStatus, OutboxEntry } from '@ppay/kernel';
import type { OrderRecord } from './order';

/** GET /orders: newest first, after the cursor (list-pages.ts). */
export interface OrderListQuery {
  status?: OrderStatus;
  product_id?: number;
  from?: Date;
  to?: Date;
  after?: string;
  limit: number;
}

/** Orders (`orders`, `_id` = order id, unique per charge). */
export interface OrderRepository {
  /** Inserts the order with `events` in its outbox, or answers the charge's existing order (one per charge). */
  insertOrGetForCharge(order: OrderRecord, events: OutboxEntry[]): Promise<{ order: OrderRecord; created: boolean }>;
  findForMerchant(merchantId: number, mode: Mode, orderId: string): Promise<OrderRecord | null>;
  /** Writes `next` (version + 1) iff still at `expected` status and version, `events` into its outbox. */
  replace(
    expected: Pick<OrderRecord, 'order_id' | 'status' | 'version'>,
    next: OrderRecord,
    events: OutboxEntry[],
  ): Promise<OrderRecord | null>;
  list(merchantId: number, mode: Mode, query: OrderListQuery): Promise<OrderRecord[]>;
  /** Orders still `paid` (not fulfilled) created before `before`, of every merchant. */
  countPaidBefore(before: Date): Promise<number>;
  /** Orders left `cancelling`, or cancelled with their stock still to return, untouched since `before`. */
  unfinished(before: Date, limit: number): Promise<OrderRecord[]>;
}

/** Gives a cancelled order's units back to its product's stock (fx-pricing), once per order. */
export interface StockReturns {
  returnStock(
    order: Pick<OrderRecord, 'order_id' | 'merchant_id' | 'mode' | 'product' | 'variation' | 'quantity'>,
  ): Promise<void>;
}
