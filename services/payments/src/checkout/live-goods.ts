import { money, PlatformError, prefixedId, type Money } from '@ppay/kernel';
import type { SessionRepository } from '../ports';
import type { ProcessorAddress, Verdict } from '../processors/processor-event';
import type { CheckoutGoods, CheckoutIntent, ProcessorAdapter } from '../processors/ports';
import type { GoodsCheckout } from './goods-checkout';
import { lineTotal, shippingAddressOf, type GoodsLine } from './physical-goods';
import type { StockHolds } from './ports';
import type { CloseResult, ProcessorCheckout } from './processor-checkout';
import { redirectWithSession } from './redirects';
import { effectiveStatus, type SessionRecord } from './session';

/**
 * Live hosted checkout of physical goods (docs/decisions.md, S32–S35). The customer pays on the
 * processor's page, where nothing of ours runs at submit, so the units are held for the session's whole
 * life: taken when the session is made, kept when the processor says it was paid, given back when it
 * says it expired. Made in an order that a crash anywhere leaves harmless:
 *
 * 1. the session is stored first, not yet opened at its processor (`gateway_session_id` '', stock
 *    `open`): nobody can pay it, and once it expires the stock sweep gives back whatever it holds;
 * 2. under its attempt claim (so two repeats of one create never overlap): its units are held (keyed by
 *    the session, so a repeat takes none twice); sold out → the session is deleted, 409, nothing asked;
 * 3. the processor's session is made (its idempotency key is our session id); a failure gives the units
 *    back at once, still under the claim, and deletes the session (a repeat of the create starts afresh);
 * 4. the processor's session is recorded with the units `held`, and the claim given back, in one write.
 */

/**
 * How long after its expiry a live session's units wait for its processor's word before the stock sweep
 * gives them back anyway: Stripe retries an event it could not deliver for up to three days, so within
 * this a payment made before the expiry is still announced and finds its units held.
 */
export const LIVE_HOLD_GRACE_MS = 3 * 24 * 60 * 60 * 1000;

/** A live physical session stored but not opened at its processor yet (steps 1–3 above). */
export function isUnopened(s: Pick<SessionRecord, 'mode' | 'goods' | 'gateway_session_id'>): boolean {
  return s.mode === 'live' && s.goods !== null && s.gateway_session_id === '';
}

/** 409 STOCK_INSUFFICIENT, as a stock change asking for more units than are left. */
export function soldOut(line: GoodsLine): PlatformError {
  return new PlatformError(
    'STOCK_INSUFFICIENT',
    'Sorry, this product is sold out: fewer units are left than the quantity asked for',
    { param: line.variation ? 'variation_id' : 'quantity', detail: 'sold_out' },
  );
}

/**
 * The shipping fee's part of the session's base amount, in the session's currency: the fee itself when
 * nothing was converted, otherwise its share of the converted total (rounded half up), so the parts
 * always add up to the base exactly.
 */
function shippingShare(line: GoodsLine, base: Money): Money {
  if (line.shipping_fee.currency === base.currency) return line.shipping_fee;
  const whole = BigInt(lineTotal(line).amount);
  if (whole === 0n) return money(0, base.currency);
  const share = (2n * BigInt(base.amount) * BigInt(line.shipping_fee.amount) + whole) / (2n * whole);
  return money(Number(share), base.currency);
}

/**
 * What the processor's page lists for a physical session (S33): the product (its quantity when the
 * items' amount divides evenly, otherwise one line naming it), the fee when the customer pays it, and
 * the shipping fee; they add up to `fee_details.total`, what the processor charges.
 */
export function checkoutGoodsOf(s: Pick<SessionRecord, 'goods' | 'fee_details' | 'product'>): CheckoutGoods | null {
  const line = s.goods;
  if (!line) return null;
  const { base, total } = s.fee_details;
  const shipping = shippingShare(line, base);
  const items = base.amount - shipping.amount;
  const name = (s.product.name || 'Order') + (line.variation ? ` (${line.variation.name})` : '');
  const lines: CheckoutGoods['lines'] = [
    items % line.quantity === 0
      ? { name, unit_amount: money(items / line.quantity, base.currency), quantity: line.quantity }
      : { name: `${name} × ${line.quantity}`, unit_amount: money(items, base.currency), quantity: 1 },
  ];
  // What the customer pays on top of the goods: the fee, when the customer pays fees (0 otherwise).
  const fee = total.amount - base.amount;
  if (fee > 0) lines.push({ name: 'Transaction fee', unit_amount: money(fee, total.currency), quantity: 1 });
  return { lines, shipping, ships_to: line.ships_to };
}

/**
 * The processor's session of a stored live session, from the record alone: a repeat of the create (the
 * partner's, after a crash) asks for exactly what the first asked for, under the same idempotency key.
 */
export function liveGoodsIntent(s: SessionRecord): CheckoutIntent {
  return {
    session_id: s.session_id,
    merchant_id: s.merchant_id,
    mode: s.mode,
    amount: s.fee_details.total,
    customer_email: s.customer.email,
    description: s.product.name,
    goods: checkoutGoodsOf(s),
    success_url: redirectWithSession(s.success_url, s.session_id),
    cancel_url: redirectWithSession(s.cancel_url, s.session_id),
    expires_at: s.expires_at,
    purpose: 'pay',
  };
}

export class LiveGoodsCheckout {
  constructor(
    private readonly deps: {
      sessions: Pick<
        SessionRepository,
        | 'insertOrGetByIdempotencyKey'
        | 'findById'
        | 'claimAttempt'
        | 'releaseAttempt'
        | 'openAtProcessor'
        | 'discardUnopened'
        | 'closeFromProcessor'
        | 'heldPastExpiry'
      >;
      goods: Pick<GoodsCheckout, 'hold' | 'release' | 'paid'>;
      stock: Pick<StockHolds, 'settle'>;
      checkout: Pick<ProcessorCheckout, 'complete' | 'expire'>;
    },
    private readonly options: { attemptStaleMs: number; graceMs?: number; now?: () => Date },
  ) {}

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** A new live physical session (built by SessionService, not opened yet): stored, held, opened. */
  async open(
    record: SessionRecord,
    adapter: Pick<ProcessorAdapter, 'initialiseCheckout'>,
  ): Promise<{ session: SessionRecord; replayed: boolean }> {
    const saved = await this.deps.sessions.insertOrGetByIdempotencyKey(record, []);
    return { session: await this.resume(saved.session, adapter), replayed: !saved.created };
  }

  /**
   * Opens a stored live session at its processor if a create did not finish (a repeat with the same
   * Idempotency-Key after a crash, or racing the first); any other session is answered as it is. After a
   * crash the processor may refuse the repeat (its idempotency key seen with another expiry): the units
   * go back and the session is deleted as for any failure, so the next repeat makes a new one.
   */
  async resume(s: SessionRecord, adapter: Pick<ProcessorAdapter, 'initialiseCheckout'>): Promise<SessionRecord> {
    if (!isUnopened(s) || s.status !== 'pending') return s;
    const attemptId = prefixedId('att');
    const now = this.now();
    const staleBefore = new Date(now.getTime() - this.options.attemptStaleMs);
    const claimed = await this.deps.sessions.claimAttempt(s.session_id, attemptId, now, staleBefore);
    if (!claimed) return this.openedMeanwhile(s);
    const line = claimed.goods!;
    const giveClaimBack = () => this.deps.sessions.releaseAttempt(s.session_id, attemptId);
    const held = await this.deps.goods.hold(claimed).catch(async (err: unknown) => {
      await giveClaimBack();
      throw err;
    });
    if (held === 'sold_out') {
      // Nothing held, nothing asked: the session goes too (a crash first leaves it to expire, holding nothing).
      await this.deps.sessions.discardUnopened(s.session_id, attemptId);
      throw soldOut(line);
    }
    let opened;
    try {
      opened = await adapter.initialiseCheckout(liveGoodsIntent(claimed));
    } catch (err) {
      // Nobody can pay a session its processor did not open. Its units go back now, under the claim (no
      // repeat holds them meanwhile), and the session with them: a repeat of the create starts afresh,
      // since the processor answers a repeated idempotency key with its first answer, errors included.
      // fx-pricing not answering: the session stays, unopened, and the stock sweep gives them back once
      // it expires.
      const returned = await this.deps.stock.settle(line.product_id, s.session_id, false).then(
        () => true,
        () => false,
      );
      await (returned ? this.deps.sessions.discardUnopened(s.session_id, attemptId) : giveClaimBack()).catch(
        () => undefined,
      );
      throw err;
    }
    const saved = await this.deps.sessions.openAtProcessor(
      s.session_id,
      attemptId,
      {
        gateway_session_id: opened.processor_reference,
        payment_url: opened.payment_url,
        expires_at: opened.expires_at,
      },
      this.now(),
    );
    return saved ?? this.openedMeanwhile(s);
  }

  /** A create that could not claim its session: another repeat opened, discarded or is opening it. */
  private async openedMeanwhile(s: SessionRecord): Promise<SessionRecord> {
    const now = await this.deps.sessions.findById(s.session_id);
    if (!now) throw soldOut(s.goods!); // the other found it sold out and deleted it
    if (!isUnopened(now)) return now;
    if (effectiveStatus(now, this.now()) !== 'pending') return { ...now, status: 'expired' };
    throw new PlatformError('CONFLICT', 'This checkout session is still being created; repeat the request', {
      param: 'idempotency_key',
    });
  }

  /**
   * The processor took the payment of a live physical session (S34): completed with its shipping address
   * and its units sold (`commit`) in one write, then the order recorded, as a sandbox payment on our page.
   * The address is checked as ours is (bounded fields, a country the product ships to); none usable is
   * a mismatch. Units given back after the grace period (S35) are taken again first; sold out since, the
   * payment is kept `stale` for an operator to refund rather than sold twice.
   */
  async complete(s: SessionRecord, paymentReference: string, shipping: ProcessorAddress | null): Promise<Verdict> {
    const line = s.goods!;
    if (s.status === 'completed') return this.paid(await this.deps.checkout.complete(s, paymentReference));
    if (!shipping) return { status: 'mismatch', note: 'the event carries no shipping address' };
    let address;
    try {
      address = shippingAddressOf(addressInput(shipping), line);
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      return { status: 'mismatch', note: `the shipping address is not usable: ${err.message} (${err.param})` };
    }
    // Units on their way back (the processor's expiry, or the grace period): taken again once they are.
    if (s.stock_state === 'release') return 'retry';
    if (s.stock_state === 'settled') {
      const held = await this.deps.goods.hold(s);
      if (held === 'sold_out') {
        return {
          status: 'stale',
          note: 'paid after its units were given back, and sold out since: refund the payment at the processor',
        };
      }
    } else if (s.stock_state !== 'held') {
      return { status: 'mismatch', note: `the session's stock is ${s.stock_state}` };
    }
    const r = await this.deps.checkout.complete(s, paymentReference, {
      shipping_address: address,
      stock_from: s.stock_state,
    });
    // Its units moved meanwhile (an expiry applied at the same moment): apply again from where they are.
    if (r.result === 'stale' && (r.session.status === 'pending' || r.session.status === 'expired')) return 'retry';
    return this.paid(r);
  }

  /** The order and the units kept sold (both repeatable: the sweep and the payment.succeeded consumer too). */
  private async paid(r: CloseResult): Promise<Verdict> {
    if (r.result === 'stale') return { status: 'stale', note: `the session is ${r.session.status}` };
    await this.deps.goods.paid(r.session).catch(() => undefined);
    return { status: r.result, note: null };
  }

  /**
   * The processor's session expired unpaid: the session expires (if our clock has not) and its units go
   * back (`held` → `release`) in one write; fx-pricing is told at once, or by the stock sweep.
   */
  async expire(s: SessionRecord): Promise<Verdict> {
    const saved =
      s.stock_state === 'held'
        ? await this.deps.sessions.closeFromProcessor(
            s.session_id,
            { status: 'expired', now: this.now(), release_stock: true },
            [],
          )
        : null;
    if (!saved) {
      const now = s.stock_state === 'held' ? ((await this.deps.sessions.findById(s.session_id)) ?? s) : s;
      const r = await this.deps.checkout.expire(now);
      return r.result === 'stale'
        ? { status: 'stale', note: `the session is ${now.status}` }
        : { status: r.result, note: null };
    }
    await this.deps.goods.release(saved).catch(() => undefined);
    return { status: 'applied', note: null };
  }

  /**
   * The stock sweep's net for an expiry never heard of (S35): a live session still holding its units
   * `graceMs` after it expired gives them back, as its processor's expiry would. Returns how many.
   */
  async releaseUnheard(limit = 50): Promise<number> {
    const now = this.now();
    const before = new Date(now.getTime() - (this.options.graceMs ?? LIVE_HOLD_GRACE_MS));
    let released = 0;
    for (const s of await this.deps.sessions.heldPastExpiry(before, limit)) {
      const saved = await this.deps.sessions.closeFromProcessor(
        s.session_id,
        { status: 'expired', now, release_stock: true },
        [],
      );
      if (!saved) continue;
      released++;
      await this.deps.goods.release(saved).catch(() => undefined);
    }
    return released;
  }
}

/** The processor's address as the fields our page posts (absent where it has none). */
function addressInput(a: ProcessorAddress) {
  const f = (v: string | null) => v ?? undefined;
  return {
    name: f(a.name),
    line1: f(a.line1),
    line2: f(a.line2),
    city: f(a.city),
    state: f(a.state),
    postal_code: f(a.postal_code),
    country: f(a.country),
    phone: f(a.phone),
  };
}
