import { ORDER_STATUSES, requireMerchant, requireMode, type OrderStatus } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { dateOf, optionalOneOf } from '../request-fields';
import { orderPayload, type OrderRecord } from './order';
import type { OrderService } from './orders';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

const wire = (o: OrderRecord) => toWire(orderPayload(o));

/** Orders: decode, call the use case, encode. */
export function orderHandlers(orders: OrderService): Partial<Handlers> {
  return {
    async ListOrders(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const page = await orders.list(merchantId, requireMode(caller), {
        status: optionalOneOf<OrderStatus>(ORDER_STATUSES, req.status, 'status'),
        product_id: req.product_id || undefined,
        from: dateOf(req.from, 'from'),
        to: dateOf(req.to, 'to'),
        limit: req.limit || undefined,
        cursor: req.cursor || undefined,
      });
      return toWire({ ...page, orders: page.orders.map(orderPayload) });
    },
    async GetOrder(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await orders.get(merchantId, requireMode(caller), req.order_id));
    },
    async FulfilOrder(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(
        await orders.fulfil(merchantId, requireMode(caller), req.order_id, {
          carrier: req.carrier,
          tracking_number: req.tracking_number,
          tracking_url: req.tracking_url || undefined,
        }),
      );
    },
    async DeliverOrder(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await orders.deliver(merchantId, requireMode(caller), req.order_id));
    },
    async CancelOrder(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await orders.cancel(merchantId, requireMode(caller), req.order_id, req.reason));
    },
  };
}
