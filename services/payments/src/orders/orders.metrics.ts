import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { OrderRecord } from './order';

/** Orders by what happened to them, how long shipping took, stock holds at checkout, and overdue orders. */
export function orderMetrics(registry: Registry) {
  const orders = new Counter({
    name: 'ppay_orders_total',
    help: 'Orders created, fulfilled, delivered and cancelled, by mode',
    labelNames: ['event', 'mode'],
    registers: [registry],
  });
  const fulfilment = new Histogram({
    name: 'ppay_order_fulfilment_seconds',
    help: 'Time from an order being paid to it being fulfilled (shipped)',
    buckets: [3_600, 6 * 3_600, 86_400, 2 * 86_400, 3 * 86_400, 7 * 86_400, 14 * 86_400],
    registers: [registry],
  });
  const holds = new Counter({
    name: 'ppay_stock_holds_total',
    help: 'Stock asked for when customers submit the checkout form: held, unlimited, or refused as sold out',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const overdue = new Gauge({
    name: 'ppay_orders_unfulfilled_overdue',
    help: 'Paid orders not fulfilled within ORDER_FULFILMENT_ALERT_DAYS',
    registers: [registry],
  });
  return {
    holds,
    overdue,
    event(order: OrderRecord, event: 'created' | 'fulfilled' | 'delivered' | 'cancelled') {
      orders.inc({ event, mode: order.mode });
      if (event === 'fulfilled') {
        fulfilment.observe((order.updated_at.getTime() - order.created_at.getTime()) / 1000);
      }
    },
  };
}
