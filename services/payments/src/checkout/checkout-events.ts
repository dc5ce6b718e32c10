import type { SessionRepository } from '../ports';
import type { CheckoutEvent, EventApplier, Verdict } from '../processors/processor-event';
import { isUnopened, type LiveGoodsCheckout } from './live-goods';
import type { CloseResult, ProcessorCheckout } from './processor-checkout';

/**
 * A live session closed at its processor (paid, or expired), applied through the ProcessorCheckout use
 * cases: the session completes with its charge and `payment.succeeded` exactly as a sandbox success on
 * our page does, or expires; a physical product's session through LiveGoodsCheckout (its address, its
 * units, its order). Events that do not match the session (mode, the processor's session id,
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
    if (s.payment_type !== 'one_time') {
      return { status: 'mismatch', note: `a live ${s.payment_type} session is not closed by its processor yet` };
    }
    if (e.outcome === 'expired') {
      return s.goods ? this.deps.goods.expire(s) : verdictOf(await this.deps.checkout.expire(s));
    }
    const expected = s.fee_details.total;
    if (!e.amount || e.amount.amount !== expected.amount || e.amount.currency !== expected.currency) {
      const paid = e.amount ? `${e.amount.amount} ${e.amount.currency}` : 'no amount';
      return { status: 'mismatch', note: `event ${paid}, session ${expected.amount} ${expected.currency}` };
    }
    if (!e.payment_reference) return { status: 'mismatch', note: 'the event names no payment' };
    if (s.goods) return this.deps.goods.complete(s, e.payment_reference, e.shipping ?? null);
    return verdictOf(await this.deps.checkout.complete(s, e.payment_reference));
  }
}

function verdictOf(r: CloseResult): Verdict {
  if (r.result === 'stale') return { status: 'stale', note: `the session is ${r.session.status}` };
  return { status: r.result, note: null };
}
