import {
  prefixedId,
  type Mode,
  type MulticurrencyBreakdown,
  type OrderEvent,
  type OrderPayload,
  type OrderSplit,
  type OrderStatus,
  type ShippingAddress,
} from '@ppay/kernel';

/**
 * An order for a physical product (docs/decisions.md, Products and orders): its own aggregate, one
 * document, made exactly once when the product's payment succeeds (unique per charge). `cancelling` is
 * internal: the refund of a cancel is under way (partners see `paid` until it is `cancelled`).
 */
export type OrderState = OrderStatus | 'cancelling';

export interface OrderRecord {
  order_id: string;
  /**
   * The merchant that sells and ships it: the session's, or for a marketplace sale the sub-merchant
   * (the charge is then the operator's, `split.operator_id`).
   */
  merchant_id: number;
  mode: Mode;
  status: OrderState;
  product: { id: number | null; title: string; type: string };
  variation: { variation_id: string; name: string } | null;
  quantity: number;
  amount: MulticurrencyBreakdown;
  shipping_address: ShippingAddress;
  customer: { email: string; first_name: string; last_name: string };
  charge_id: string;
  session_id: string;
  split: OrderSplit | null;
  /** At most one: fulfilling moves the order on once (the document stays bounded). */
  fulfilments: { carrier: string; tracking_number: string; tracking_url: string | null; fulfilled_at: Date }[];
  cancellation: { reason: string; refund_id: string | null; cancelled_at: Date | null } | null;
  /**
   * Cancels that asked for a refund: each has its own refund key (refundKeyOf), so a retry of the current
   * one replays its refund, and a cancel after a declined refund asks for a new one.
   */
  refund_attempts: number;
  /** Whether the units of a cancelled order still have to go back to the product's stock. */
  stock_return: 'none' | 'pending' | 'done';
  delivered_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type OrderDraft = Pick<
  OrderRecord,
  | 'merchant_id'
  | 'mode'
  | 'product'
  | 'variation'
  | 'quantity'
  | 'amount'
  | 'shipping_address'
  | 'customer'
  | 'charge_id'
  | 'session_id'
  | 'split'
>;

/** A new order, `paid`: the one place an order is drafted. */
export function newOrder(d: OrderDraft, now: Date): OrderRecord {
  return {
    order_id: prefixedId('ord'),
    ...d,
    status: 'paid',
    fulfilments: [],
    cancellation: null,
    refund_attempts: 0,
    stock_return: 'none',
    delivered_at: null,
    version: 0,
    created_at: now,
    updated_at: now,
  };
}

/** The order as partners see it (REST, gRPC and every order.* event). */
export function orderPayload(o: OrderRecord): OrderPayload {
  return {
    order_id: o.order_id,
    status: o.status === 'cancelling' ? 'paid' : o.status,
    product: o.product,
    variation: o.variation,
    quantity: o.quantity,
    amount: o.amount,
    shipping_address: o.shipping_address,
    customer: o.customer,
    charge_id: o.charge_id,
    session_id: o.session_id,
    split: o.split,
    fulfilments: o.fulfilments.map((f) => ({ ...f, fulfilled_at: f.fulfilled_at.toISOString() })),
    cancellation: o.cancellation?.cancelled_at
      ? { ...o.cancellation, cancelled_at: o.cancellation.cancelled_at.toISOString() }
      : null,
    delivered_at: o.delivered_at?.toISOString() ?? null,
    is_live: o.mode === 'live',
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
  };
}

/** Whose charge the order's payment is (refunds go through it): the operator's for a marketplace sale. */
export function chargeOwnerOf(o: Pick<OrderRecord, 'merchant_id' | 'split'>): number {
  return o.split?.operator_id ?? o.merchant_id;
}

/**
 * The Idempotency-Key of the refund of the order's current cancel. Orders stored before attempts were
 * counted (0) keep the key their in-flight cancel used, so a pending refund is resumed, never doubled.
 */
export function refundKeyOf(o: Pick<OrderRecord, 'order_id' | 'refund_attempts'>): string {
  return o.refund_attempts > 0 ? `order:${o.order_id}:${o.refund_attempts}` : `order:${o.order_id}`;
}

/** Who may see and act on an order: its seller and, for a marketplace sale, the operator. */
export function isOrderParty(o: Pick<OrderRecord, 'merchant_id' | 'split'>, merchantId: number): boolean {
  return o.merchant_id === merchantId || o.split?.operator_id === merchantId;
}

/** The order.* event of each party: the seller and, for a marketplace sale, the operator too. */
export function orderEvents(o: OrderRecord): OrderEvent[] {
  const order = orderPayload(o);
  const parties = o.split ? [o.merchant_id, o.split.operator_id] : [o.merchant_id];
  return parties.map((merchant_id) => ({ merchant_id, order }));
}
