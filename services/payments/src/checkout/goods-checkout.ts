import { PlatformError, prefixedId, type Mode, type Money } from '@ppay/kernel';
import type { FxConverter } from '../charges/ports';
import type { OrderService } from '../orders/orders';
import type { ChargeRepository, SessionRepository } from '../ports';
import type { WalletCredits } from '../wallets/wallet-credits';
import { goodsLineOf, lineTotal, orderDraftOf, splitCreditOf, type GoodsLine } from './physical-goods';
import type { CatalogueProduct, StockHolds } from './ports';
import { paidCharge, sessionOutcome, type SessionRecord } from './session';

/**
 * The physical side of a checkout (docs/decisions.md, Products and orders): pricing the line, taking the
 * units when the customer submits the form (a live session's when it is made: live-goods.ts), keeping or giving them back once the payment is decided,
 * and the order a paid one makes. Each step is idempotent by session (the stock hold) or by charge
 * (the order), so the sweep and the payment.succeeded consumer can repeat what a crash interrupted.
 * A declined card's units go back under the session's attempt claim: a customer's next attempt reuses
 * the session's hold, so it must never be given back while that attempt runs.
 */
export class GoodsCheckout {
  constructor(
    private readonly deps: {
      fx: FxConverter;
      stock: StockHolds;
      orders: Pick<OrderService, 'record'>;
      /** A marketplace sale's wallet credits: the split its order shows is the one they made. */
      credits: Pick<WalletCredits, 'creditsOf'>;
      /** Where a paid session's charge is copied (as SessionService does). */
      charges: Pick<ChargeRepository, 'insert'>;
      sessions: Pick<
        SessionRepository,
        'findById' | 'withStockToSettle' | 'markStockSettled' | 'claimAttempt' | 'releaseAttempt'
      >;
    },
    /** Told of every hold's outcome (metrics). */
    private readonly onHold: (outcome: 'held' | 'unlimited' | 'sold_out') => void = () => undefined,
    /** When an attempt's claim on a session is stale (SessionService's), and the clock. */
    private readonly claims: { attemptStaleMs: number; now: () => Date } = {
      attemptStaleMs: 30_000,
      now: () => new Date(),
    },
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

  /**
   * Gives back the units of a session that paid nothing: a declined card's (stock_state `release`, the
   * session still open: another card may hold them again), or those of a session that can no longer pay.
   * An open session's are given back under its attempt claim; when a new attempt holds the claim, that
   * attempt keeps the hold (it is paid or declined in turn) and nothing is given back. False when nothing
   * was done (the sweep tries again while the state says so).
   */
  async release(s: SessionRecord): Promise<boolean> {
    if (!s.goods || (s.stock_state !== 'release' && s.stock_state !== 'open')) return false;
    if (s.status !== 'pending') {
      await this.deps.stock.settle(s.goods.product_id, s.session_id, false);
      await this.deps.sessions.markStockSettled(s.session_id, s.stock_state);
      return true;
    }
    if (s.stock_state !== 'release') return false;
    const claimId = prefixedId('att');
    const now = this.claims.now();
    const staleBefore = new Date(now.getTime() - this.claims.attemptStaleMs);
    const claimed = await this.deps.sessions.claimAttempt(s.session_id, claimId, now, staleBefore);
    if (!claimed) return false;
    try {
      if (claimed.stock_state !== 'release') return false;
      await this.deps.stock.settle(s.goods.product_id, s.session_id, false);
      await this.deps.sessions.markStockSettled(s.session_id, 'release', 'open');
      return true;
    } finally {
      await this.deps.sessions.releaseAttempt(s.session_id, claimId);
    }
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

  /**
   * The order of a paid physical session; the payment.succeeded consumer calls it too (a crash between).
   * Its charge is copied first (a repeat changes nothing): the order's cancel refunds that charge, which
   * must not wait for the ledger reconciler to copy it minutes later. A marketplace sale's split is the
   * one its wallet credits made, written now (idempotently, as the ledger's consumer would) if they are
   * not yet: the sub-merchant's share is judged when the payment succeeds, not when the session was made.
   * marketplace unreachable: nothing is recorded and the consumer's redelivery tries again.
   */
  async recordOrder(s: SessionRecord): Promise<void> {
    if (!s.goods || !s.payment || !s.shipping_address) return;
    const charge = paidCharge(s)!;
    await this.deps.charges.insert(charge);
    const outcome = sessionOutcome(s, s.payment, s.completed_at ?? s.updated_at);
    const credit =
      s.sub_merchant_id !== null && s.split
        ? splitCreditOf(await this.deps.credits.creditsOf(charge, s.mode), s.sub_merchant_id)
        : null;
    await this.deps.orders.record(orderDraftOf(s, s.goods, s.shipping_address, outcome, credit));
  }

  /** payment.succeeded of a session → its order (by session id; a session without goods makes none). */
  async onPaymentSucceeded(sessionId: string): Promise<void> {
    const s = await this.deps.sessions.findById(sessionId);
    if (s) await this.paid(s);
  }

  /**
   * The sweep: holds of paid sessions are kept (`commit`), those of declined cards (`release`) and of
   * sessions that can no longer pay (expired, failed) given back. Each is told to fx-pricing, then marked.
   */
  async settleStock(limit = 50): Promise<number> {
    let settled = 0;
    for (const s of await this.deps.sessions.withStockToSettle(limit)) {
      if (!s.goods) continue;
      if (s.stock_state !== 'commit') {
        if (await this.release(s)) settled++;
        continue;
      }
      await this.deps.stock.settle(s.goods.product_id, s.session_id, true);
      await this.deps.sessions.markStockSettled(s.session_id, 'commit');
      settled++;
    }
    return settled;
  }
}
