import type { ChargeRecord } from '../charges/charge';
import type { LookUpAnswer, ProcessorRegistry } from './ports';
import type { PaymentEvent } from './processor-event';
import type { ProcessorEventInbox } from './processor-events';

/** Live charges as the reconciler reads them (charges/live-charge-lookups.repo.ts). */
export interface LiveChargeLookups {
  /** Live charges last asked about (or created, if never asked) before `before`, oldest first. */
  due(before: Date, limit: number): Promise<ChargeRecord[]>;
  /** Records when the processor was asked (the next look-up is due `afterMs` later); null: never again. */
  schedule(chargeId: string, askedAt: Date | null): Promise<void>;
  /** Watched live charges still pending that were created before `before`. */
  countStale(before: Date): Promise<number>;
}

export interface LiveReconcilerOptions {
  /** A live charge pending this long (and this long after each look-up) is looked up at its processor. */
  afterMs: number;
  /** A live charge older than this is no longer looked up (its customer never paid): the events alone settle it. */
  maxAgeMs: number;
  /** Look-ups per run: a bounded load on the processor and its rate limit. */
  batch: number;
  /** The processor's name in the events the reconciler makes (its inbox key). */
  processor: string;
  now?: () => Date;
}

export type LookUpOutcome = 'succeeded' | 'failed' | 'pending' | 'error' | 'given_up';

export interface LiveReconcileReport {
  /** Looked-up charges by outcome (succeeded/failed: the processor had settled it, its event was missed). */
  outcomes: Partial<Record<LookUpOutcome, number>>;
  /** Watched live charges still pending past `afterMs` after the run (ppay_live_charges_pending_stale). */
  stale: number;
}

/**
 * Finds live charges whose processor event was missed: still pending long after they were set up, it
 * asks the processor what became of the payment and, when the processor has made it final, applies
 * that as a processor event through the inbox, the path every event takes (stored once by its id,
 * amount and reference checked, a failure applied only once the payment is cancelled at the
 * processor, a state never moving backwards). docs/decisions.md S20.
 */
export class LiveChargeReconciler {
  private readonly now: () => Date;

  constructor(
    private readonly deps: {
      lookups: LiveChargeLookups;
      processors: Pick<ProcessorRegistry, 'adapterFor'>;
      inbox: Pick<ProcessorEventInbox, 'receive' | 'applyDue'>;
    },
    private readonly options: LiveReconcilerOptions,
    private readonly onLookUpFailed?: (charge: ChargeRecord, err: unknown) => void,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async run(): Promise<LiveReconcileReport> {
    const now = this.now();
    const before = new Date(now.getTime() - this.options.afterMs);
    const outcomes: LiveReconcileReport['outcomes'] = {};
    let received = 0;
    for (const charge of await this.deps.lookups.due(before, this.options.batch)) {
      const outcome = await this.reconcile(charge, now);
      if (outcome === null) continue;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (outcome === 'succeeded' || outcome === 'failed') received++;
    }
    // Applied now rather than at the inbox's next sweep; the sweep retries whatever this leaves.
    if (received > 0) await this.deps.inbox.applyDue();
    return { outcomes, stale: await this.deps.lookups.countStale(before) };
  }

  private async reconcile(charge: ChargeRecord, now: Date): Promise<LookUpOutcome | null> {
    const { lookups } = this.deps;
    // Final already (the index entry outlived it): nothing to ask.
    if (charge.status === 'succeeded' || charge.status === 'failed') {
      await lookups.schedule(charge.charge_id, null);
      return null;
    }
    // Still initialising: the abandoned-charges sweep settles it, or it becomes pending; ask later.
    if (charge.status !== 'pending') {
      await lookups.schedule(charge.charge_id, now);
      return null;
    }
    // Pending with no payment named: a saved card's off-session charge whose answer is unknown (a
    // timeout). Its caller repeats it with the same key, which looks the payment up at the processor
    // and completes it with the payment's context; the reconciler could neither name the payment nor
    // tell that context, so it stops watching it (docs/decisions.md S38).
    if (!charge.processor_reference) {
      await lookups.schedule(charge.charge_id, null);
      return null;
    }
    if (now.getTime() - charge.created_at.getTime() > this.options.maxAgeMs) {
      await lookups.schedule(charge.charge_id, null);
      return 'given_up';
    }
    // Recorded before asking: a failing processor or a crash is asked again a full interval later, not every run.
    await lookups.schedule(charge.charge_id, now);
    let answer: LookUpAnswer;
    try {
      answer = await this.deps.processors
        .adapterFor(charge.processor_group, charge.mode)
        .lookUp(charge.processor_reference);
    } catch (err) {
      this.onLookUpFailed?.(charge, err);
      return 'error';
    }
    if (answer.status === 'pending') return 'pending';
    await this.deps.inbox.receive(this.eventOf(charge, charge.processor_reference, answer));
    return answer.status;
  }

  /**
   * The answer as the processor's event would have said it. Its id names the payment and the final
   * state, so repeated look-ups store it once, and an event of the processor's own is stored apart
   * (applying both is safe: the second finds the charge already final).
   */
  private eventOf(
    charge: ChargeRecord,
    reference: string,
    answer: Exclude<LookUpAnswer, { status: 'pending' }>,
  ): PaymentEvent {
    return {
      kind: 'payment',
      processor: this.options.processor,
      event_id: `reconcile:${reference}:${answer.status}`,
      type: `reconcile.${answer.status}`,
      merchant_id: charge.merchant_id,
      mode: charge.mode,
      outcome: answer.status,
      charge_id: charge.charge_id,
      processor_reference: reference,
      amount: answer.amount,
      failure_reason: answer.status === 'failed' ? answer.failure_reason : null,
    };
  }
}
