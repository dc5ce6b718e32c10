import { outboxEvent, PlatformError, SUBJECTS, type Mode, type OrderStatus, type OutboxEntry } from '@ppay/kernel';
import { decodeCursor, listKeyOf, pageOf, pageSize } from '../list-pages';
import type { RefundService } from '../refunds/refunds';
import {
  chargeOwnerOf,
  newOrder,
  orderEvents,
  refundKeyOf,
  type OrderDraft,
  type OrderRecord,
  type OrderState,
} from './order';
import type { OrderRepository, StockReturns } from './ports';

export interface FulfilmentInput {
  carrier: string;
  tracking_number: string;
  tracking_url?: string;
}

export interface OrderListInput {
  sub_merchant_id?: number;
  status?: OrderStatus;
  product_id?: number;
  from?: Date;
  to?: Date;
  limit?: number;
  cursor?: string;
}

/** The position of an order in its merchant's list, newest first (list-pages.ts). */
export function orderListKey(o: Pick<OrderRecord, 'created_at' | 'order_id'>): string {
  return listKeyOf(o.created_at, o.order_id);
}

const invalid = (param: string, message: string) => new PlatformError('VALIDATION_FAILED', message, { param });

function text(value: unknown, param: string, min: number, max: number): string {
  if (typeof value !== 'string' || value.length > max)
    throw invalid(param, `${param} must be ${min} to ${max} characters`);
  const t = value.trim();
  if (t.length < min) throw invalid(param, `${param} must be ${min} to ${max} characters`);
  return t;
}

function httpsUrl(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (value.length > 2048) throw invalid('tracking_url', 'tracking_url must be at most 2048 characters');
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || url.protocol !== 'https:') throw invalid('tracking_url', 'tracking_url must be an absolute https URL');
  return value;
}

const conflict = (o: OrderRecord, wanted: string) =>
  new PlatformError(
    'ORDER_STATUS_CONFLICT',
    `The order is ${o.status === 'cancelling' ? 'being cancelled' : o.status}; ${wanted}`,
    {
      param: 'order_id',
    },
  );

/**
 * What a merchant does with its orders (GET /orders, fulfil, deliver, cancel). Every transition is one
 * conditional write on the expected status and version, with its order.* event in the order's outbox, so
 * concurrent calls make one transition. Cancel refunds the whole payment through the refunds path.
 */
export class OrderService {
  constructor(
    private readonly deps: {
      orders: OrderRepository;
      refunds: Pick<RefundService, 'create'>;
      stock: StockReturns;
    },
    private readonly options: {
      maxRounds?: number;
      staleAfterMs?: number;
      /** Told of every order made and every status an order reaches (metrics). */
      onEvent?: (order: OrderRecord, event: 'created' | 'fulfilled' | 'delivered' | 'cancelled') => void;
    } = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The order of a paid physical product, made once per charge (a repeat answers the same order). */
  async record(draft: OrderDraft): Promise<OrderRecord> {
    const order = newOrder(draft, this.now());
    const { order: saved, created } = await this.deps.orders.insertOrGetForCharge(
      order,
      orderOutbox(SUBJECTS.orderCreated, order),
    );
    if (created) this.options.onEvent?.(saved, 'created');
    return saved;
  }

  async get(merchantId: number, mode: Mode, orderId: string): Promise<OrderRecord> {
    const o = await this.deps.orders.findForParty(merchantId, mode, orderId);
    if (!o) throw new PlatformError('ORDER_NOT_FOUND', undefined, { param: 'order_id' });
    return o;
  }

  async list(merchantId: number, mode: Mode, input: OrderListInput) {
    const limit = pageSize(input.limit);
    const read = await this.deps.orders.list(merchantId, mode, {
      sub_merchant_id: input.sub_merchant_id,
      status: input.status,
      product_id: input.product_id,
      from: input.from,
      to: input.to,
      after: input.cursor ? decodeCursor(input.cursor, 'ord') : undefined,
      limit: limit + 1,
    });
    const { items, ...page } = pageOf(read, limit, orderListKey);
    return { orders: items, ...page };
  }

  /** paid → fulfilled, with the shipment. */
  async fulfil(merchantId: number, mode: Mode, orderId: string, input: FulfilmentInput): Promise<OrderRecord> {
    const fulfilment = {
      carrier: text(input.carrier, 'carrier', 1, 100),
      tracking_number: text(input.tracking_number, 'tracking_number', 1, 100),
      tracking_url: httpsUrl(input.tracking_url),
    };
    return this.move(
      merchantId,
      mode,
      orderId,
      'paid',
      'fulfilled',
      'only a paid order can be fulfilled',
      (o, now) => ({
        ...o,
        status: 'fulfilled',
        fulfilments: [{ ...fulfilment, fulfilled_at: now }],
      }),
    );
  }

  /** fulfilled → delivered. */
  async deliver(merchantId: number, mode: Mode, orderId: string): Promise<OrderRecord> {
    return this.move(
      merchantId,
      mode,
      orderId,
      'fulfilled',
      'delivered',
      'only a fulfilled order can be delivered',
      (o, now) => ({
        ...o,
        status: 'delivered',
        delivered_at: now,
      }),
    );
  }

  /**
   * paid → cancelled: the order is marked `cancelling` first (one conditional write, which counts the
   * attempt), then its payment is refunded in full (the refunds path, its Idempotency-Key the order id and
   * attempt, so a repeat of this cancel refunds nothing twice), then it is cancelled with the refund and its
   * units go back to the product's stock. A refund that cannot happen (declined, a dispute is open, the
   * charge was refunded already) puts the order back to `paid` and says why; only then may a new cancel
   * start, with a new attempt and so a new refund: at most one refund of an order can succeed.
   */
  async cancel(merchantId: number, mode: Mode, orderId: string, reason: unknown): Promise<OrderRecord> {
    const why = text(reason, 'reason', 3, 500);
    let order = await this.get(merchantId, mode, orderId);
    if (order.status !== 'cancelling') {
      order = await this.move(merchantId, mode, orderId, 'paid', null, 'only a paid order can be cancelled', (o) => ({
        ...o,
        status: 'cancelling',
        cancellation: { reason: why, refund_id: null, cancelled_at: null },
        refund_attempts: o.refund_attempts + 1,
      }));
    }
    return this.finishCancel(order);
  }

  /** The sweep: cancels whose refund did not finish, and stock a crash kept from going back. */
  async finishUnfinished(limit = 50): Promise<number> {
    const before = new Date(this.now().getTime() - (this.options.staleAfterMs ?? 60_000));
    let finished = 0;
    for (const o of await this.deps.orders.unfinished(before, limit)) {
      const done = o.status === 'cancelling' ? await this.finishCancel(o).catch(() => null) : await this.returnStock(o);
      if (done) finished++;
    }
    return finished;
  }

  private async finishCancel(order: OrderRecord): Promise<OrderRecord> {
    let refund;
    try {
      refund = await this.deps.refunds.create(
        chargeOwnerOf(order),
        order.mode,
        order.charge_id,
        { reason: order.cancellation?.reason ?? 'order cancelled' },
        { idempotencyKey: refundKeyOf(order) },
      );
    } catch (err) {
      // Refused for good (a dispute, already refunded): no refund was made, the order stays paid. A lost
      // race (CONFLICT) may leave this attempt's refund pending: retried later, like an outage.
      if (err instanceof PlatformError && err.group !== 'infrastructure' && err.code !== 'CONFLICT') {
        await this.revertCancel(order);
      }
      throw err;
    }
    if (refund.refund.status === 'failed') {
      await this.revertCancel(order);
      throw new PlatformError('ORDER_REFUND_FAILED', undefined, {
        param: 'order_id',
        detail: `the processor declined the refund (${refund.refund.failure_reason ?? 'declined'})`,
      });
    }
    if (refund.refund.status !== 'succeeded') {
      throw new PlatformError(
        'UPSTREAM_TIMEOUT',
        'The refund of this order is still pending; retry to finish the cancel',
      );
    }
    const cancelled = await this.transition(order, 'cancelling', (o, now) => ({
      ...o,
      status: 'cancelled',
      cancellation: { reason: o.cancellation?.reason ?? '', refund_id: refund.refund.refund_id, cancelled_at: now },
      stock_return: 'pending',
    }));
    return cancelled ? this.returnStock(cancelled) : this.get(order.merchant_id, order.mode, order.order_id);
  }

  private async revertCancel(order: OrderRecord): Promise<void> {
    await this.transition(order, 'cancelling', (o) => ({ ...o, status: 'paid', cancellation: null }), false);
  }

  /** Gives the units back (idempotent by order in fx-pricing), then records it; the sweep repeats it. */
  private async returnStock(order: OrderRecord): Promise<OrderRecord> {
    if (order.stock_return !== 'pending') return order;
    if (order.product.id !== null) {
      await this.deps.stock.returnStock(order.order_id, {
        merchant_id: chargeOwnerOf(order),
        mode: order.mode,
        product_id: order.product.id,
        variation_id: order.variation?.variation_id ?? null,
        quantity: order.quantity,
      });
    }
    return (await this.transition(order, 'cancelled', (o) => ({ ...o, stock_return: 'done' }), false)) ?? order;
  }

  /** from → to by `change`, re-reading on a lost race; 409 when the order is no longer `from`. */
  private async move(
    merchantId: number,
    mode: Mode,
    orderId: string,
    from: OrderState,
    to: OrderStatus | null,
    wanted: string,
    change: (o: OrderRecord, now: Date) => OrderRecord,
  ): Promise<OrderRecord> {
    for (let round = 0; round < (this.options.maxRounds ?? 50); round++) {
      const order = await this.get(merchantId, mode, orderId);
      if (order.status !== from) throw conflict(order, wanted);
      const written = await this.transition(order, from, change, to !== null);
      if (written) return written;
    }
    throw new PlatformError('CONFLICT', 'This order is being changed by concurrent requests; retry', {
      param: 'order_id',
    });
  }

  /** One conditional write; the event of the status the order reaches, when it is one partners see. */
  private async transition(
    order: OrderRecord,
    from: OrderState,
    change: (o: OrderRecord, now: Date) => OrderRecord,
    announce = true,
  ): Promise<OrderRecord | null> {
    const now = this.now();
    const next = { ...change(order, now), updated_at: now };
    const subject = announce ? SUBJECT_OF[next.status] : undefined;
    const events: OutboxEntry[] = subject ? orderOutbox(subject, next) : [];
    const written = await this.deps.orders.replace(
      { order_id: order.order_id, status: from, version: order.version },
      next,
      events,
    );
    if (written && subject && written.status !== 'paid' && written.status !== 'cancelling') {
      this.options.onEvent?.(written, written.status);
    }
    return written;
  }

  /** Paid orders not fulfilled since before `before` (the overdue gauge). */
  countUnfulfilledSince(before: Date): Promise<number> {
    return this.deps.orders.countPaidBefore(before);
  }
}

/** The order's event for each party to it (the seller and, for a marketplace sale, the operator). */
function orderOutbox(subject: (typeof SUBJECTS)[keyof typeof SUBJECTS], order: OrderRecord): OutboxEntry[] {
  return orderEvents(order).map((event) =>
    outboxEvent(subject, event, { merchantId: event.merchant_id, mode: order.mode }),
  );
}

const SUBJECT_OF: Partial<Record<OrderState, (typeof SUBJECTS)[keyof typeof SUBJECTS]>> = {
  fulfilled: SUBJECTS.orderFulfilled,
  delivered: SUBJECTS.orderDelivered,
  cancelled: SUBJECTS.orderCancelled,
};
