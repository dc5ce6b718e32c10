import type { Clock } from './ports';
import type { SlotHolder } from './send-slots';

/** A retry of one delivery to one key. */
export interface DueRetry extends SlotHolder {
  deliveryId: string;
}

/** Who claims a retry whose time came (see ClaimLoop). */
export interface RetryClaimer {
  /** Whether the key has a free slot and a claim may be made now. */
  mayClaim(holder: SlotHolder): boolean;
  /** Takes the key's slot and claims the retry by id. */
  claim(retry: DueRetry): void;
}

/**
 * The retries this worker scheduled. When one falls due it takes its key's next free slot, ahead of
 * new deliveries waiting for one, and is claimed by id (no query over the due work), so a busy key's
 * retry goes out on time (spec 6.3: 2 s after the previous attempt) however many new deliveries keep
 * the key busy. Due retries wait for a slot oldest first. A retry another replica claimed first is
 * left to it (the claim finds nothing).
 */
export class RetryTimers {
  /** Retries whose time came, waiting for a slot, oldest first. */
  private readonly ready: DueRetry[] = [];
  private readonly timers = new Set<() => void>();
  private running = false;

  constructor(
    private readonly clock: Clock,
    private readonly claimer: RetryClaimer,
  ) {}

  start(): void {
    this.running = true;
  }

  /** Drops every retry scheduled or waiting: still due in the store, any replica's claim takes them. */
  stop(): void {
    this.running = false;
    this.ready.length = 0;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }

  /** The retry is due at `at`. */
  schedule(at: Date, retry: DueRetry): void {
    if (!this.running) return;
    // A few ms late rather than early: a claim made before `next_attempt_at` finds nothing.
    const cancel = this.clock.after(Math.max(0, at.getTime() - this.clock.now().getTime()) + 5, () => {
      this.timers.delete(cancel);
      this.ready.push(retry);
      this.serve();
    });
    this.timers.add(cancel);
  }

  /** Due retries whose key has a slot now get it, oldest first. */
  serve(): void {
    for (let i = 0; i < this.ready.length;) {
      if (!this.running) return;
      const retry = this.ready[i]!;
      if (!this.claimer.mayClaim(retry)) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      this.claimer.claim(retry);
    }
  }
}
