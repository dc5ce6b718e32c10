import type { ChargeRepository } from '../ports';
import type { RefundAnswer } from '../processors/ports';
import type { EventApplier, RefundEvent, Verdict } from '../processors/processor-event';
import type { RefundService } from './refunds';

/**
 * A refund's state from its processor, applied to the refund through the refund use case's own write
 * (`RefundService.recordAnswer`): a success adds to amount_refunded and puts payment.refunded in the
 * charge's outbox in that same write (the ledger reversal follows from it), a failure frees the
 * reserved amount, a pending one records the processor's id. Repeats are harmless: the write is a
 * compare-and-set on the refund still being pending, and a refund already in the event's state is a
 * duplicate. A final refund never moves backwards: Stripe may report a succeeded refund failed days
 * later (the money came back), which is kept as `stale` for an operator rather than undone here.
 */
export class RefundEventApplier implements EventApplier<RefundEvent> {
  constructor(
    private readonly deps: {
      charges: Pick<ChargeRepository, 'findForMerchant'>;
      refunds: Pick<RefundService, 'recordAnswer'>;
    },
  ) {}

  async apply(e: RefundEvent): Promise<Verdict> {
    const charge = await this.deps.charges.findForMerchant(e.merchant_id, e.mode, e.charge_id);
    const refund = charge?.refunds.find((r) => r.refund_id === e.refund_id);
    // The refund is reserved before the processor is asked, so this is a race at most: later.
    if (!charge || !refund) return 'later';
    if (charge.mode !== 'live') return { status: 'mismatch', note: `the charge is ${charge.mode}` };
    if (e.payment_reference !== null && e.payment_reference !== charge.processor_reference) {
      return { status: 'mismatch', note: `payment ${e.payment_reference} is not the charge's` };
    }
    // No id recorded yet (the request timed out): the refund id in the metadata names it.
    if (refund.processor_reference !== null && refund.processor_reference !== e.processor_reference) {
      return { status: 'mismatch', note: `refund ${e.processor_reference} is not the refund's` };
    }
    if (refund.amount.amount !== e.amount.amount || refund.amount.currency !== e.amount.currency) {
      return {
        status: 'mismatch',
        note: `event ${e.amount.amount} ${e.amount.currency}, refund ${refund.amount.amount} ${refund.amount.currency}`,
      };
    }
    if (refund.status !== 'pending') {
      if (refund.status === e.outcome) return { status: 'duplicate', note: null };
      return { status: 'stale', note: `the refund is ${refund.status}; the processor says ${e.outcome}` };
    }
    if (e.outcome === 'pending' && refund.processor_reference === e.processor_reference) {
      return { status: 'duplicate', note: null };
    }
    const { changed, refund: after } = await this.deps.refunds.recordAnswer(charge, refund.refund_id, answerOf(e));
    if (changed) return { status: 'applied', note: null };
    // Settled in between by the request or the sweep: the same state is a repeat, another one is stale.
    return after.status === e.outcome
      ? { status: 'duplicate', note: null }
      : { status: 'stale', note: `the refund is ${after.status}; the processor says ${e.outcome}` };
  }
}

function answerOf(e: RefundEvent): RefundAnswer {
  switch (e.outcome) {
    case 'succeeded':
      return { status: 'succeeded', processor_reference: e.processor_reference };
    case 'failed':
      return { status: 'failed', failure_reason: e.failure_reason ?? 'failed' };
    case 'pending':
      return { status: 'pending', processor_reference: e.processor_reference };
  }
}
