import type { SessionRepository } from '../ports';
import type { CheckoutEvent, EventApplier, Verdict } from '../processors/processor-event';
import { isUnopened, type LiveGoodsCheckout } from './live-goods';
import { checkoutPurpose, type CloseResult, type ProcessorCheckout } from './processor-checkout';

/**
 * A live session closed at its processor (paid, or expired), applied through the ProcessorCheckout use
 * cases: the session completes with its charge and `payment.succeeded` exactly as a sandbox success on
 * our page does (a subscription or installment session with its saved card), or expires; a physical
 * product's session through LiveGoodsCheckout (its address, its units, its order). Events that do not
 * match the session (mode, the processor's session id,
 * amount, currency) are kept for an operator and never applied.
 */
export class CheckoutEventApplier implements EventApplier<CheckoutEvent> {
  constructor(
    private readonly deps: {
      sessions: Pick<SessionRepository, 'findForMerchant'>;
      checkout: ProcessorCheckout;
      /** A physical product's session: its address, its units and its order (live-goods.ts). */
      goods: Pick<LiveGoodsCheckout, 'complete' | 'expire'>;
    },
    private readonly onCompleteFailed?: (event: CheckoutEvent, err: unknown) => void,
  ) {}

  async apply(e: CheckoutEvent): Promise<Verdict> {
    const s = await this.deps.sessions.findForMerchant(e.session_id, e.merchant_id, e.mode);
    // The processor's session is made before ours is stored: ours may land shortly.
    if (!s) return 'later';
    if (s.mode !== 'live') return { status: 'mismatch', note: `the session is ${s.mode}` };
    if (isUnopened(s)) {
      // Its create stopped after the processor's session was made: nobody was given its page.
      return { status: 'stale', note: 'the session was never opened at its processor (its create was interrupted)' };
    }
    if (s.gateway_session_id !== e.processor_reference) {
      return { status: 'mismatch', note: `session ${e.processor_reference} is not the session's` };
    }
    if (e.outcome === 'expired') {
      return s.goods ? this.deps.goods.expire(s) : verdictOf(await this.deps.checkout.expire(s));
    }
    // A free trial's session charges nothing: it only keeps the card.
    const expected = checkoutPurpose(s) === 'save' ? null : s.fee_details.total;
    const paid = e.amount && e.amount.amount > 0 ? e.amount : null;
    if (paid?.amount !== expected?.amount || paid?.currency !== expected?.currency) {
      const said = paid ? `${paid.amount} ${paid.currency}` : 'no payment';
      const owed = expected ? `${expected.amount} ${expected.currency}` : 'no payment';
      return { status: 'mismatch', note: `event ${said}, session ${owed}` };
    }
    if (expected && !e.payment_reference) return { status: 'mismatch', note: 'the event names no payment' };
    try {
      if (s.goods) return await this.deps.goods.complete(s, e.payment_reference!, e.shipping ?? null);
      return verdictOf(await this.deps.checkout.complete(s, e.payment_reference));
    } catch (err) {
      // The processor could not say what the session was paid with (or answered what we cannot read):
      // the event is tried again later, backing off, and the events behind it go on.
      this.onCompleteFailed?.(e, err);
      return 'retry';
    }
  }
}

function verdictOf(r: CloseResult): Verdict {
  if (r.result === 'mismatch') return { status: 'mismatch', note: r.note };
  if (r.result === 'stale') return { status: 'stale', note: `the session is ${r.session.status}` };
  return { status: r.result, note: null };
}
