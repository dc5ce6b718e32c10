import type { EventAppliers, FinalStatus, InboxRecord, ProcessorEvent, Verdict } from './processor-event';

export interface ProcessorEventRepository {
  /** Stores a new event (status received); false when this id is already stored. */
  insert(record: InboxRecord): Promise<boolean>;
  /** Received events whose next attempt is due, oldest first. */
  due(now: Date, limit: number): Promise<InboxRecord[]>;
  /** received → `status`; a no-op when another sweeper finished it first. */
  finish(id: string, status: FinalStatus, note: string | null, now: Date): Promise<void>;
  /** Still received: try again at `until` (attempts + 1). */
  postpone(id: string, until: Date): Promise<void>;
}

export interface InboxOptions {
  /** An event whose record is not found (or not ready) this long after it arrived is unmatched. */
  unmatchedAfterMs: number;
  /**
   * Delay before an event waiting for its record is tried again; an event whose processor must be asked
   * again (`retry`) is tried again after this, doubled each attempt up to 64 times.
   */
  retryMs: number;
  onFinished?: (record: InboxRecord, status: FinalStatus, note: string | null) => void;
  now?: () => Date;
}

/**
 * The inbox of processor events: stored once by event id and acknowledged at once, then applied
 * asynchronously by `applyDue`, each kind by its own applier (the use cases the sandbox outcomes use).
 * Applying is safe to repeat (each applier's writes are conditional on the record's state), so a crash
 * between applying and finishing only means the next sweep finds the record already there (duplicate).
 */
export class ProcessorEventInbox {
  private readonly now: () => Date;

  constructor(
    private readonly deps: { events: ProcessorEventRepository; appliers: EventAppliers },
    private readonly options: InboxOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async receive(event: ProcessorEvent): Promise<'received' | 'duplicate'> {
    const now = this.now();
    const stored = await this.deps.events.insert({
      id: `${event.processor}:${event.event_id}`,
      event,
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
      const verdict = await this.apply(record);
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
        await this.finish(record, { status: 'unmatched', note: 'nothing to apply it to arrived in time' }, now);
      } else {
        await this.finish(record, verdict, now);
      }
      finished++;
    }
    return finished;
  }

  private apply(record: InboxRecord): Promise<Verdict> {
    const event = record.event;
    switch (event.kind) {
      case 'payment':
        return this.deps.appliers.payment.apply(event, record);
      case 'refund':
        return this.deps.appliers.refund.apply(event, record);
      case 'dispute':
        return this.deps.appliers.dispute.apply(event, record);
      case 'checkout':
        return this.deps.appliers.checkout.apply(event, record);
      case 'connected_account':
        return this.deps.appliers.connected_account.apply(event, record);
      case 'payout_transfer':
        return this.deps.appliers.payout_transfer.apply(event, record);
    }
  }

  private async finish(record: InboxRecord, verdict: Exclude<Verdict, 'later' | 'retry'>, now: Date): Promise<void> {
    await this.deps.events.finish(record.id, verdict.status, verdict.note, now);
    this.options.onFinished?.(record, verdict.status, verdict.note);
  }
}
