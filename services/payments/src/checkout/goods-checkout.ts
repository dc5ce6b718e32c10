import { PlatformError, type Mode, type Money } from '@ppay/kernel';
import type { FxConverter } from '../charges/ports';
import type { OrderService } from '../orders/orders';
import type { SessionRepository } from '../ports';
import { goodsLineOf, lineTotal, orderDraftOf, type GoodsLine } from './physical-goods';
import type { CatalogueProduct, StockHolds } from './ports';
import { sessionOutcome, type SessionRecord } from './session';

/**
 * The physical side of a checkout (docs/decisions.md, Products and orders): pricing the line, taking the
 * units when the customer submits the form, keeping or giving them back once the payment is decided,
 * and the order a paid one makes. Each step is idempotent by session (the stock hold) or by charge
 * (the order), so the sweep and the payment.succeeded consumer can repeat what a crash interrupted.
 */
export class GoodsCheckout {
  constructor(
    private readonly deps: {
      fx: FxConverter;
      stock: StockHolds;
      orders: Pick<OrderService, 'record'>;
      sessions: Pick<SessionRepository, 'findById' | 'withStockToSettle' | 'markStockSettled'>;
    },
    /** Told of every hold's outcome (metrics). */
    private readonly onHold: (outcome: 'held' | 'unlimited' | 'sold_out') => void = () => undefined,
  ) {}

  /**
   * A physical product's line and what the session charges for it: price × quantity + shipping in the
   * product's currency, converted once to the session's (4.4 rates) when it differs. An amount the
   * partner sent must be that amount (spec 7.1 "Amount mismatch"). null for any other product.
   */
  async price(
    product: CatalogueProduct,
    productId: number,
    request: { quantity?: number; variation_id?: string; amount?: number; currency?: string },
    mode: Mode,
  ): Promise<{ line: GoodsLine; amount: Money } | null> {
    const line = goodsLineOf(product, productId, request);
    if (!line) return null;
    const total = lineTotal(line);
    const currency = request.currency?.trim().toUpperCase() || total.currency;
    const amount = currency === total.currency ? total : (await this.deps.fx.convert(total, currency, mode)).result;
    if (request.amount !== undefined && request.amount !== amount.amount) {
      throw new PlatformError('AMOUNT_MISMATCH', undefined, {
        param: 'amount',
        detail: `${line.quantity} × ${line.unit_price.amount} + shipping ${line.shipping_fee.amount} ${total.currency} is ${amount.amount} ${currency}; leave amount out to have it computed`,
      });
    }
    return { line, amount };
  }

  /** Takes the session's units before its card is charged (again on a repeat: the hold is per session). */
  async hold(s: SessionRecord): Promise<'held' | 'unlimited' | 'sold_out'> {
    const line = s.goods!;
    const outcome = await this.deps.stock.hold(
      {
        merchant_id: s.merchant_id,
        mode: s.mode,
        product_id: line.product_id,
        variation_id: line.variation?.variation_id ?? null,
        quantity: line.quantity,
      },
      s.session_id,
    );
    this.onHold(outcome);
    return outcome;
  }

  /** Gives the units back after a declined card (the session stays open: another card may hold them again). */
  release(s: SessionRecord): Promise<void> {
    return this.deps.stock.settle(s.goods!.product_id, s.session_id, false);
  }

  /** A paid session: its units stay sold, and its order is made (both repeatable). */
  async paid(s: SessionRecord): Promise<void> {
    if (!s.goods || !s.payment || !s.shipping_address) return;
    await this.recordOrder(s);
    if (s.stock_state === 'commit') {
      await this.deps.stock.settle(s.goods.product_id, s.session_id, true);
      await this.deps.sessions.markStockSettled(s.session_id, 'commit');
    }
  }

  /** The order of a paid physical session; the payment.succeeded consumer calls it too (a crash between). */
  async recordOrder(s: SessionRecord): Promise<void> {
    if (!s.goods || !s.payment || !s.shipping_address) return;
    const outcome = sessionOutcome(s, s.payment, s.completed_at ?? s.updated_at);
    await this.deps.orders.record(orderDraftOf(s, s.goods, s.shipping_address, outcome));
  }

  /** payment.succeeded of a session → its order (by session id; a session without goods makes none). */
  async onPaymentSucceeded(sessionId: string): Promise<void> {
    const s = await this.deps.sessions.findById(sessionId);
    if (s) await this.paid(s);
  }

  /**
   * The sweep: holds of paid sessions are kept (`commit`), those of sessions that can no longer pay
   * (expired, failed) given back. Each is told to fx-pricing, then marked settled.
   */
  async settleStock(limit = 50): Promise<number> {
    let settled = 0;
    for (const s of await this.deps.sessions.withStockToSettle(limit)) {
      if (!s.goods) continue;
      const sold = s.stock_state === 'commit';
      await this.deps.stock.settle(s.goods.product_id, s.session_id, sold);
      await this.deps.sessions.markStockSettled(s.session_id, sold ? 'commit' : 'open');
      settled++;
    }
    return settled;
  }
}
