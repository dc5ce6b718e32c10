import { PlatformError } from '@ppay/kernel';
import { disputeWorld } from '../disputes/disputes.test-util';
import { FakeStockReturns, MemoryOrders } from './order-memory.test-util';
import type { OrderDraft } from './order';
import { OrderService } from './orders';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });

async function world() {
  const w = disputeWorld();
  const orders = new MemoryOrders();
  const stock = new FakeStockReturns();
  const service = new OrderService({ orders, refunds: w.refunds, stock }, { staleAfterMs: 60_000 }, w.now);
  const order = async () => {
    const chargeId = await w.newCharge();
    const draft: OrderDraft = {
      merchant_id: 1000,
      mode: 'sandbox',
      product: { id: 7, title: 'Mug', type: 'physical' },
      variation: null,
      quantity: 2,
      amount: {
        customer_paid: ngn(500_000),
        merchant_gross: ngn(500_000),
        merchant_net: ngn(482_500),
        fees: { platform_fee: ngn(17_500), gateway_fee: ngn(0), total: ngn(17_500) },
      },
      shipping_address: {
        name: 'Ada Obi',
        line1: '1 Marina',
        line2: null,
        city: 'Lagos',
        state: null,
        postal_code: null,
        country: 'NG',
        phone: null,
      },
      customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi' },
      charge_id: chargeId,
      session_id: 'cs_1',
      split: null,
    };
    return { chargeId, draft, order: await service.record(draft) };
  };
  const subjects = () => orders.events.map((e) => e.subject.replace('payments.order.', ''));
  return { w, orders, stock, service, order, subjects };
}

/** The statuses of a charge's refunds, in order. */
const refundStatuses = (charge: { refunds: { status: string }[] } | null) => charge!.refunds.map((r) => r.status);

async function errorOf(p: Promise<unknown>): Promise<[string, string | undefined]> {
  const err = await p.then(
    () => new Error('expected an error'),
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw err;
  return [err.code, err.param];
}

describe('OrderService', () => {
  it('records one order per charge, then fulfils and delivers it once', async () => {
    const { service, order, subjects } = await world();
    const { order: o, draft } = await order();
    expect(o).toMatchObject({ order_id: expect.stringMatching(/^ord_/), status: 'paid', quantity: 2, fulfilments: [] });
    expect((await service.record(draft)).order_id).toBe(o.order_id);
    const fulfilled = await service.fulfil(1000, 'sandbox', o.order_id, {
      carrier: 'DHL',
      tracking_number: 'JD0001',
      tracking_url: 'https://track.example/JD0001',
    });
    expect(fulfilled).toMatchObject({
      status: 'fulfilled',
      fulfilments: [{ carrier: 'DHL', tracking_number: 'JD0001' }],
    });
    expect(await errorOf(service.fulfil(1000, 'sandbox', o.order_id, { carrier: 'x', tracking_number: 'y' }))).toEqual([
      'ORDER_STATUS_CONFLICT',
      'order_id',
    ]);
    expect(await errorOf(service.cancel(1000, 'sandbox', o.order_id, 'changed my mind'))).toEqual([
      'ORDER_STATUS_CONFLICT',
      'order_id',
    ]);
    expect((await service.deliver(1000, 'sandbox', o.order_id)).status).toBe('delivered');
    expect(subjects()).toEqual(['created', 'fulfilled', 'delivered']);
    expect(await errorOf(service.get(2000, 'sandbox', o.order_id))).toEqual(['ORDER_NOT_FOUND', 'order_id']);
  });

  it('validates the fulfilment and the cancel reason', async () => {
    const { service, order } = await world();
    const { order: o } = await order();
    const fulfil = (input: object) => errorOf(service.fulfil(1000, 'sandbox', o.order_id, input as never));
    expect(await fulfil({ carrier: '', tracking_number: '1' })).toEqual(['VALIDATION_FAILED', 'carrier']);
    expect(await fulfil({ carrier: 'x', tracking_number: 't'.repeat(101) })).toEqual([
      'VALIDATION_FAILED',
      'tracking_number',
    ]);
    expect(await fulfil({ carrier: 'x', tracking_number: '1', tracking_url: 'http://x' })).toEqual([
      'VALIDATION_FAILED',
      'tracking_url',
    ]);
    expect(await errorOf(service.cancel(1000, 'sandbox', o.order_id, 'no'))).toEqual(['VALIDATION_FAILED', 'reason']);
  });

  it('cancels a paid order: refunds the payment in full once, returns the stock, announces it', async () => {
    const { w, service, order, stock, subjects } = await world();
    const { order: o, chargeId } = await order();
    const cancelled = await service.cancel(1000, 'sandbox', o.order_id, 'out of stock at the warehouse');
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      stock_return: 'done',
      cancellation: { reason: 'out of stock at the warehouse', refund_id: expect.stringMatching(/^re_/) },
    });
    const charge = (await w.charges.findForMerchant(1000, 'sandbox', chargeId))!;
    expect([charge.refunded, charge.refunds.length]).toEqual([true, 1]);
    expect(stock.returned.get(o.order_id)).toEqual({
      merchant_id: 1000,
      mode: 'sandbox',
      product_id: 7,
      variation_id: null,
      quantity: 2,
    });
    expect(await errorOf(service.cancel(1000, 'sandbox', o.order_id, 'again please'))).toEqual([
      'ORDER_STATUS_CONFLICT',
      'order_id',
    ]);
    expect(subjects()).toEqual(['created', 'cancelled']);
  });

  it("a marketplace sale is the sub-merchant's order, the operator's too; a cancel refunds the operator's charge", async () => {
    const { w, service, orders, order, stock } = await world();
    const { order: own } = await order(); // the operator's (1000) own sale
    const chargeId = await w.newCharge();
    const split = {
      operator_id: 1000,
      sub_merchant_id: 2000,
      commission_rate: '0.07',
      commission: ngn(35_000),
      sub_merchant_amount: ngn(465_000),
    };
    const { draft } = await order();
    const sold = await service.record({ ...draft, merchant_id: 2000, charge_id: chargeId, split });
    expect(orders.events.slice(-2).map((e) => [e.subject, e.merchant_id])).toEqual([
      ['payments.order.created', 2000],
      ['payments.order.created', 1000],
    ]);
    const ids = async (merchantId: number, input = {}) =>
      (await service.list(merchantId, 'sandbox', input)).orders.map((o) => o.order_id);
    expect(await ids(2000)).toEqual([sold.order_id]);
    expect(await ids(1000)).toHaveLength(3);
    expect(await ids(1000)).toContain(sold.order_id);
    expect(await ids(1000, { sub_merchant_id: 2000 })).toEqual([sold.order_id]);
    expect(await ids(2000, { sub_merchant_id: 2000 })).toEqual([]);
    expect(await errorOf(service.get(3000, 'sandbox', sold.order_id))).toEqual(['ORDER_NOT_FOUND', 'order_id']);
    expect(await errorOf(service.get(2000, 'sandbox', own.order_id))).toEqual(['ORDER_NOT_FOUND', 'order_id']);
    expect((await service.get(1000, 'sandbox', sold.order_id)).split).toEqual(split);

    // The seller cancels what it cannot ship: the operator's charge is refunded, the operator's product restocked.
    const cancelled = await service.cancel(2000, 'sandbox', sold.order_id, 'cannot ship this one');
    expect(cancelled.status).toBe('cancelled');
    const charge = (await w.charges.findForMerchant(1000, 'sandbox', chargeId))!;
    expect([charge.refunded, charge.refunds.length]).toEqual([true, 1]);
    expect(stock.returned.get(sold.order_id)).toMatchObject({ merchant_id: 1000, product_id: 7, quantity: 2 });
    expect(orders.events.slice(-2).map((e) => [e.subject, e.merchant_id])).toEqual([
      ['payments.order.cancelled', 2000],
      ['payments.order.cancelled', 1000],
    ]);
  });

  it('keeps the order paid when the refund cannot happen (an open dispute, a declined refund)', async () => {
    const { w, service, order } = await world();
    const { order: disputed, chargeId } = await order();
    await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
    expect(await errorOf(service.cancel(1000, 'sandbox', disputed.order_id, 'cancel it'))).toEqual([
      'CHARGE_DISPUTED',
      'charge_id',
    ]);
    expect((await service.get(1000, 'sandbox', disputed.order_id)).status).toBe('paid');
    const { order: declined } = await order();
    w.processors.refundAnswer = { status: 'failed', failure_reason: 'declined_by_processor' };
    expect(await errorOf(service.cancel(1000, 'sandbox', declined.order_id, 'cancel it'))).toEqual([
      'ORDER_REFUND_FAILED',
      'order_id',
    ]);
    expect((await service.get(1000, 'sandbox', declined.order_id)).status).toBe('paid');
  });

  it('a cancel after a declined refund asks for a new refund: cancelled, stock back, one refund succeeded', async () => {
    const { w, service, order, stock, subjects } = await world();
    const { order: o, chargeId } = await order();
    w.processors.refundAnswer = { status: 'failed', failure_reason: 'declined_by_processor' };
    for (let i = 0; i < 2; i++) {
      expect(await errorOf(service.cancel(1000, 'sandbox', o.order_id, 'cannot ship it'))).toEqual([
        'ORDER_REFUND_FAILED',
        'order_id',
      ]);
    }
    expect([(await service.get(1000, 'sandbox', o.order_id)).status, stock.returned.size]).toEqual(['paid', 0]);
    w.processors.refundAnswer = undefined;
    const cancelled = await service.cancel(1000, 'sandbox', o.order_id, 'cannot ship it');
    const charge = (await w.charges.findForMerchant(1000, 'sandbox', chargeId))!;
    // Each cancel asked the processor once, under its own key; only the last refund went through.
    expect(charge.refunds.map((r) => [r.idempotency_key, r.status])).toEqual([
      [`order:${o.order_id}:1`, 'failed'],
      [`order:${o.order_id}:2`, 'failed'],
      [`order:${o.order_id}:3`, 'succeeded'],
    ]);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      stock_return: 'done',
      cancellation: { refund_id: charge.refunds[2]!.refund_id },
    });
    expect([charge.refunded, charge.amount_refunded.amount, stock.returned.has(o.order_id)]).toEqual([
      true,
      500_000,
      true,
    ]);
    expect(await errorOf(service.cancel(1000, 'sandbox', o.order_id, 'cannot ship it'))).toEqual([
      'ORDER_STATUS_CONFLICT',
      'order_id',
    ]);
    expect(subjects()).toEqual(['created', 'cancelled']);
  });

  it('an order whose refund was declined before attempts were counted can still be cancelled', async () => {
    const { w, service, order, orders } = await world();
    const { order: o, chargeId } = await order();
    // What the earlier code left: a failed refund under the order's bare key, the order paid, no attempt counted.
    w.processors.refundAnswer = { status: 'failed', failure_reason: 'declined_by_processor' };
    const key = { idempotencyKey: `order:${o.order_id}` };
    await w.refunds.create(1000, 'sandbox', chargeId, { reason: 'cancel it' }, key);
    expect(orders.docs.get(o.order_id)!.refund_attempts).toBe(0);
    w.processors.refundAnswer = undefined;
    expect((await service.cancel(1000, 'sandbox', o.order_id, 'cancel it')).status).toBe('cancelled');
    const charge = (await w.charges.findForMerchant(1000, 'sandbox', chargeId))!;
    expect(charge.refunds.map((r) => r.status)).toEqual(['failed', 'succeeded']);
  });

  it('repeated and concurrent cancels never make two successful refunds', async () => {
    const { w, service, order, stock } = await world();
    const { order: o, chargeId } = await order();
    w.processors.refundAnswer = { status: 'failed', failure_reason: 'declined_by_processor' };
    await expect(service.cancel(1000, 'sandbox', o.order_id, 'cancel it')).rejects.toThrow(PlatformError);
    // The processor is unreachable: the new refund's outcome is unknown, so the cancel stays under way (not
    // put back to paid) and no later cancel may start another refund.
    w.processors.refundAnswer = new Error('processor unreachable');
    await expect(service.cancel(1000, 'sandbox', o.order_id, 'cancel it')).rejects.toThrow('processor unreachable');
    expect(refundStatuses(await w.charges.findForMerchant(1000, 'sandbox', chargeId))).toEqual(['failed', 'pending']);
    // Many cancels at once while the processor is slow: all of them drive that one refund.
    w.processors.refundAnswer = undefined;
    let answer = () => undefined as void;
    w.processors.gate = new Promise<void>((resolve) => (answer = resolve));
    const racing = Array.from({ length: 10 }, () => service.cancel(1000, 'sandbox', o.order_id, 'cancel it'));
    await new Promise((resolve) => setImmediate(resolve));
    answer();
    const results = await Promise.allSettled(racing);
    expect(results.some((r) => r.status === 'fulfilled' && r.value.status === 'cancelled')).toBe(true);
    expect(refundStatuses(await w.charges.findForMerchant(1000, 'sandbox', chargeId))).toEqual(['failed', 'succeeded']);
    expect([(await service.get(1000, 'sandbox', o.order_id)).status, stock.returned.has(o.order_id)]).toEqual([
      'cancelled',
      true,
    ]);
  });

  it('a refund that lost a race to another refund of the charge leaves the cancel under way, for the sweep', async () => {
    const { w, orders, stock, order } = await world();
    let lost = 1;
    const refunds: ConstructorParameters<typeof OrderService>[0]['refunds'] = {
      create: (...args) => (lost-- > 0 ? Promise.reject(new PlatformError('CONFLICT')) : w.refunds.create(...args)),
    };
    const service = new OrderService({ orders, refunds, stock }, { staleAfterMs: 60_000 }, w.now);
    const { order: o } = await order();
    expect(await errorOf(service.cancel(1000, 'sandbox', o.order_id, 'cancel it'))).toEqual(['CONFLICT', undefined]);
    expect(orders.docs.get(o.order_id)).toMatchObject({ status: 'cancelling', refund_attempts: 1 });
    w.advance(61_000);
    expect(await service.finishUnfinished()).toBe(1);
    expect(orders.docs.get(o.order_id)).toMatchObject({ status: 'cancelled', refund_attempts: 1 });
  });

  it('finishes a cancel and a stock return a crash interrupted (the sweep), refunding once', async () => {
    const { w, service, order, stock, orders } = await world();
    const { order: o, chargeId } = await order();
    stock.fail = true;
    await expect(service.cancel(1000, 'sandbox', o.order_id, 'cancel it')).rejects.toThrow('fx-pricing unavailable');
    expect((await service.get(1000, 'sandbox', o.order_id)).stock_return).toBe('pending');
    // And one stuck in cancelling (the process died after the refund).
    const { order: o2 } = await order();
    orders.docs.get(o2.order_id)!.status = 'cancelling';
    orders.docs.get(o2.order_id)!.cancellation = { reason: 'gone', refund_id: null, cancelled_at: null };
    stock.fail = false;
    expect(await service.finishUnfinished()).toBe(0); // not stale yet
    w.advance(61_000);
    expect(await service.finishUnfinished()).toBe(2);
    expect([...stock.returned.keys()].sort()).toEqual([o.order_id, o2.order_id].sort());
    expect((await w.charges.findForMerchant(1000, 'sandbox', chargeId))!.refunds).toHaveLength(1);
  });

  it('makes one transition when fulfil, cancel and deliver race', async () => {
    const { service, order, subjects } = await world();
    const { order: o } = await order();
    await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        i % 2
          ? service.fulfil(1000, 'sandbox', o.order_id, { carrier: 'DHL', tracking_number: `${i}` })
          : service.cancel(1000, 'sandbox', o.order_id, 'race to cancel'),
      ),
    );
    const moves = subjects().filter((s) => s === 'fulfilled' || s === 'cancelled');
    expect(moves).toHaveLength(1);
  });

  it('lists newest first with filters and a cursor', async () => {
    const { w, service, order } = await world();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await order()).order.order_id);
      w.advance(1_000);
    }
    await service.fulfil(1000, 'sandbox', ids[0]!, { carrier: 'x', tracking_number: '1' });
    const first = await service.list(1000, 'sandbox', { limit: 2 });
    expect(first.orders.map((o) => o.order_id)).toEqual([ids[2], ids[1]]);
    const next = await service.list(1000, 'sandbox', { limit: 2, cursor: first.next_cursor! });
    expect(next.orders.map((o) => o.order_id)).toEqual([ids[0]]);
    expect((await service.list(1000, 'sandbox', { status: 'fulfilled' })).orders.map((o) => o.order_id)).toEqual([
      ids[0],
    ]);
    expect((await service.list(1000, 'sandbox', { product_id: 8 })).orders).toEqual([]);
  });
});
