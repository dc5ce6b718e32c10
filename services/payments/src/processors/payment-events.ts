import { PlatformError } from '@ppay/kernel';
import type { OutcomeService } from '../charges/outcomes';
import type { ChargeRecord } from '../charges/charge';
import type { ChargeRepository } from '../ports';
import type { ProcessorRegistry } from './ports';
import type { EventApplier, PaymentEvent, Verdict } from './processor-event';

type Final = Exclude<Verdict, 'later' | 'retry'>;

/**
 * A payment's outcome from its processor, applied to its charge through the outcome use case the
 * sandbox helper uses (`payment.*` events, wallet credits, splits, orders follow from it).
 *
 * A failure is applied only once the processor confirms the payment can no longer be taken (a customer
 * may retry a declined payment): until it answers, the event is retried and the charge stays pending,
 * so our final state and the processor's never differ.
 */
export class PaymentEventApplier implements EventApplier<PaymentEvent> {
  constructor(
    private readonly deps: {
      charges: Pick<ChargeRepository, 'findForMerchant'>;
      outcomes: OutcomeService;
      processors: Pick<ProcessorRegistry, 'adapterFor'>;
    },
    /** The processor could not be asked to cancel a failed payment: the event stays received and is retried. */
    private readonly onAbandonFailed?: (event: PaymentEvent, err: unknown) => void,
  ) {}

  async apply(e: PaymentEvent): Promise<Verdict> {
    const charge = await this.deps.charges.findForMerchant(e.merchant_id, e.mode, e.charge_id);
    // Not stored yet, or its processor answer not recorded yet (a late answer lands shortly): later.
    if (!charge || charge.status === 'initializing') return 'later';
    if (charge.mode !== 'live') return { status: 'mismatch', note: `the charge is ${charge.mode}` };
    if (e.off_session) return this.confirmOffSession(e, charge);
    if (charge.processor_reference !== e.processor_reference) {
      return { status: 'mismatch', note: `payment ${e.processor_reference} is not the charge's` };
    }
    const wrongAmount = amountMismatch(e, charge);
    if (wrongAmount) return wrongAmount;
    if (e.outcome === 'failed' && charge.status === 'pending') return this.failOnceAbandoned(e, charge);
    // Events may come out of order: an attempt declined before the one that paid is no conflict.
    if (e.outcome === 'failed' && charge.status === 'succeeded') {
      return { status: 'superseded', note: 'the charge succeeded: this was an earlier attempt' };
    }
    return this.settle(charge, e.outcome, e.failure_reason, { status: 'applied', note: null });
  }

  /**
   * A saved card's payment made without the customer (docs/decisions.md S39). Its charge is completed by
   * the charge's own call (OffSessionChargeService), which alone has the payment's context (subscription,
   * installment part) for `payment.*`, and learns the payment's id from that same answer: while the charge
   * is pending the event waits (`later`: the call, or the caller's retry with the same key, completes
   * it); once final it is a `duplicate` when it says the same, never applied twice. Nobody else holds the
   * payment's client secret, so a failure needs no cancel first. A payment other than the one the charge
   * recorded (a second payment for one charge), another amount, or the other final state (the processor
   * took money we recorded as declined) is kept and alerted.
   */
  private confirmOffSession(e: PaymentEvent, charge: ChargeRecord): Verdict {
    if (charge.status === 'pending') return 'later';
    if (charge.processor_reference && charge.processor_reference !== e.processor_reference) {
      return { status: 'mismatch', note: `payment ${e.processor_reference} is not the charge's` };
    }
    const wrongAmount = amountMismatch(e, charge);
    if (wrongAmount) return wrongAmount;
    if (charge.status === e.outcome) return { status: 'duplicate', note: null };
    return { status: 'stale', note: `an off-session charge already ${charge.status}` };
  }

  /** Fails the charge only once its payment is cancelled at the processor; otherwise takes what it became. */
  private async failOnceAbandoned(e: PaymentEvent, charge: ChargeRecord): Promise<Verdict> {
    let answer;
    try {
      answer = await this.deps.processors
        .adapterFor(charge.processor_group, charge.mode)
        .abandon({ charge_id: charge.charge_id, processor_reference: e.processor_reference, failure_id: e.event_id });
    } catch (err) {
      this.onAbandonFailed?.(e, err);
      return 'retry';
    }
    if (answer === 'cancelled')
      return this.settle(charge, 'failed', e.failure_reason, { status: 'applied', note: null });
    if (answer === 'processing') {
      return {
        status: 'superseded',
        note: 'a new attempt is processing at the processor; its event settles the charge',
      };
    }
    return this.settle(charge, 'succeeded', null, {
      status: 'superseded',
      note: 'the payment succeeded at the processor after this failure',
    });
  }

  private async settle(
    charge: ChargeRecord,
    target: 'succeeded' | 'failed',
    failureReason: string | null,
    applied: Final,
  ): Promise<Verdict> {
    try {
      const { changed } = await this.deps.outcomes.settle(charge, target, failureReason ?? 'declined');
      return changed ? applied : { status: 'duplicate', note: null };
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'CONFLICT') return { status: 'stale', note: err.message };
      throw err;
    }
  }
}

/** An event whose amount or currency is not what the charge takes: kept as a mismatch, never applied. */
function amountMismatch(e: PaymentEvent, charge: ChargeRecord): Final | null {
  const expected = charge.fee_details.total;
  if (expected.amount === e.amount.amount && expected.currency === e.amount.currency) return null;
  return {
    status: 'mismatch',
    note: `event ${e.amount.amount} ${e.amount.currency}, charge ${expected.amount} ${expected.currency}`,
  };
}
