import { PlatformError, type Mode, type Money } from '@ppay/kernel';
import type { OutcomeService } from '../charges/outcomes';
import type { ChargeRecord } from '../charges/charge';
import type { ChargeRepository } from '../ports';
import type { ProcessorRegistry } from './ports';

/**
 * Events from the live processors, in our terms (each connector maps its own; nothing here knows a
 * processor's field names): a payment's outcome, for a charge named by our own id.
 */
export interface ProcessorEvent {
  processor: string;
  /** The processor's event id: an event is stored and applied once per (processor, id). */
  event_id: string;
  /** The processor's event type, for logs and metrics. */
  type: string;
  outcome: 'succeeded' | 'failed';
  charge_id: string;
  merchant_id: number;
  mode: Mode;
  /** The processor's id of the payment: must be the one the charge recorded. */
  processor_reference: string;
  amount: Money;
  failure_reason: string | null;
}

/**
 * What a verified request holds: an event to apply, or one to acknowledge and ignore (a type not
 * handled, or a payment the platform did not make).
 */
export type VerifiedEvent =
  | { kind: 'event'; event: ProcessorEvent }
  | { kind: 'ignored'; processor: string; event_id: string; type: string; why: 'unhandled_type' | 'not_ours' };

/** Checks a processor's signature over the raw body; PROCESSOR_SIGNATURE_INVALID when it does not hold. */
export interface EventVerifier {
  verify(payload: Buffer, signature: string): VerifiedEvent;
}

/**
 * received → applied (the charge took the outcome), duplicate (it already had it), stale (it has the
 * other final state: a state never moves backwards), superseded (a failure the processor overtook: the
 * payment succeeded after all, which the charge took, or a new attempt is under way, whose own event
 * settles the charge), mismatch (amount, currency, mode or payment id differ from our record: kept for
 * an operator, never applied), unmatched (no such charge in time).
 */
export type InboxStatus = 'received' | 'applied' | 'duplicate' | 'stale' | 'superseded' | 'mismatch' | 'unmatched';

export interface InboxRecord extends ProcessorEvent {
  /** `processor:event_id`. */
  id: string;
  status: InboxStatus;
  note: string | null;
  attempts: number;
  received_at: Date;
  next_attempt_at: Date;
  finished_at: Date | null;
}

export interface ProcessorEventRepository {
  /** Stores a new event (status received); false when this id is already stored. */
  insert(record: InboxRecord): Promise<boolean>;
  /** Received events whose next attempt is due, oldest first. */
  due(now: Date, limit: number): Promise<InboxRecord[]>;
  /** received → `status`; a no-op when another sweeper finished it first. */
  finish(id: string, status: Exclude<InboxStatus, 'received'>, note: string | null, now: Date): Promise<void>;
  /** Still received: try again at `until` (attempts + 1). */
  postpone(id: string, until: Date): Promise<void>;
}

export interface InboxOptions {
  /** An event whose charge is not found (or not yet initialised) this long after it arrived is unmatched. */
  unmatchedAfterMs: number;
  /**
   * Delay before an event waiting for its charge is tried again; a failure whose payment could not be
   * cancelled at the processor yet is tried again after this, doubled each attempt up to 64 times.
   */
  retryMs: number;
  /** The processor could not be asked to cancel a failed payment: the event stays received and is retried. */
  onAbandonFailed?: (record: InboxRecord, err: unknown) => void;
  onFinished?: (record: InboxRecord, status: Exclude<InboxStatus, 'received'>, note: string | null) => void;
  now?: () => Date;
}

/** `later`: its charge is not there yet (unmatched in time); `retry`: the processor must be asked again. */
type Verdict = { status: Exclude<InboxStatus, 'received'>; note: string | null } | 'later' | 'retry';

/**
 * The inbox of processor events: stored once by event id and acknowledged at once, then applied
 * asynchronously by `applyDue` through the charge outcome use case the sandbox helper uses. Applying
 * is safe to repeat (the charge's write is conditional on its state), so a crash between applying and
 * finishing only means the next sweep finds the charge already settled (duplicate).
 *
 * A failure is applied only once the processor confirms the payment can no longer be taken (a customer
 * may retry a declined payment): until it answers, the event is retried and the charge stays pending,
 * so our final state and the processor's never differ.
 */
export class ProcessorEventInbox {
  private readonly now: () => Date;

  constructor(
    private readonly deps: {
      events: ProcessorEventRepository;
      charges: ChargeRepository;
      outcomes: OutcomeService;
      processors: Pick<ProcessorRegistry, 'adapterFor'>;
    },
    private readonly options: InboxOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async receive(event: ProcessorEvent): Promise<'received' | 'duplicate'> {
    const now = this.now();
    const stored = await this.deps.events.insert({
      ...event,
      id: `${event.processor}:${event.event_id}`,
      status: 'received',
      note: null,
      attempts: 0,
      received_at: now,
      next_attempt_at: now,
      finished_at: null,
    });
    return stored ? 'received' : 'duplicate';
  }

  /**
   * Applies due events in the background now (after a new one is stored), one run at a time; the
   * sweep job is the safety net for what this misses (a crash, an error).
   */
  applySoon(onError: (err: unknown) => void): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.applyDue()
      .catch(onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.applySoon(onError);
        }
      });
  }

  private running: Promise<unknown> | null = null;
  private again = false;

  /** Applies the events that are due; returns how many were finished. */
  async applyDue(limit = 50): Promise<number> {
    let finished = 0;
    for (const record of await this.deps.events.due(this.now(), limit)) {
      const verdict = await this.judge(record);
      const now = this.now();
      if (verdict === 'retry') {
        const delay = this.options.retryMs * 2 ** Math.min(record.attempts, 6);
        await this.deps.events.postpone(record.id, new Date(now.getTime() + delay));
        continue;
      }
      if (verdict === 'later') {
        if (now.getTime() - record.received_at.getTime() < this.options.unmatchedAfterMs) {
          await this.deps.events.postpone(record.id, new Date(now.getTime() + this.options.retryMs));
          continue;
        }
        await this.finish(record, { status: 'unmatched', note: 'no initialised charge with this id' }, now);
      } else {
        await this.finish(record, verdict, now);
      }
      finished++;
    }
    return finished;
  }

  private async finish(record: InboxRecord, verdict: Exclude<Verdict, 'later' | 'retry'>, now: Date): Promise<void> {
    await this.deps.events.finish(record.id, verdict.status, verdict.note, now);
    this.options.onFinished?.(record, verdict.status, verdict.note);
  }

  private async judge(e: InboxRecord): Promise<Verdict> {
    const charge = await this.deps.charges.findForMerchant(e.merchant_id, e.mode, e.charge_id);
    // Not stored yet, or its processor answer not recorded yet (a late answer lands shortly): later.
    if (!charge || charge.status === 'initializing') return 'later';
    if (charge.mode !== 'live') return { status: 'mismatch', note: `the charge is ${charge.mode}` };
    if (charge.processor_reference !== e.processor_reference) {
      return { status: 'mismatch', note: `payment ${e.processor_reference} is not the charge's` };
    }
    const expected = charge.fee_details.total;
    if (expected.amount !== e.amount.amount || expected.currency !== e.amount.currency) {
      return {
        status: 'mismatch',
        note: `event ${e.amount.amount} ${e.amount.currency}, charge ${expected.amount} ${expected.currency}`,
      };
    }
    if (e.outcome === 'failed' && charge.status === 'pending') return this.failOnceAbandoned(e, charge);
    // Events may come out of order: an attempt declined before the one that paid is no conflict.
    if (e.outcome === 'failed' && charge.status === 'succeeded') {
      return { status: 'superseded', note: 'the charge succeeded: this was an earlier attempt' };
    }
    return this.settle(charge, e.outcome, e.failure_reason, { status: 'applied', note: null });
  }

  /** Fails the charge only once its payment is cancelled at the processor; otherwise takes what it became. */
  private async failOnceAbandoned(e: InboxRecord, charge: ChargeRecord): Promise<Verdict> {
    let answer;
    try {
      answer = await this.deps.processors
        .adapterFor(charge.processor_group, charge.mode)
        .abandon({ charge_id: charge.charge_id, processor_reference: e.processor_reference, failure_id: e.event_id });
    } catch (err) {
      this.options.onAbandonFailed?.(e, err);
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
    applied: Exclude<Verdict, 'later' | 'retry'>,
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
