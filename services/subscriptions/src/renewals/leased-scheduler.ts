/**
 * A scheduler of due work held under leases, whatever the work is: it claims due items with a lease (a
 * conditional update on due time and lease expiry, so two schedulers never both hold one), runs every
 * action due on a claimed item one at a time, and gives the lease back. A crashed or stalled holder's item
 * is taken over once its lease has run out. Subscription renewals are its first work (renewals.ts).
 */

export interface SchedulerOptions {
  /** This process's identity in leases. */
  owner: string;
  /** How long a claimed item is ours; every write renews it. A crashed owner's work resumes after it. */
  leaseMs: number;
  /** Items processed at once by one process. */
  concurrency: number;
  /** How long an item is left alone after a step failed (e.g. payments could not answer). */
  retryAfterErrorMs: number;
  /** Candidates read per scan. */
  batchSize: number;
}

/** Where the leased items live. */
export interface LeaseStore<T> {
  /**
   * Ids of items whose next action is due by `realNow` and whose lease is free, earliest first. Only
   * candidates: `claim` decides.
   */
  dueIds(realNow: Date, limit: number): Promise<string[]>;
  /**
   * Takes the lease on one item if it is free (and, with dueOnly, if its action is due): one conditional
   * update, so two schedulers never both hold it.
   */
  claim(id: string, realNow: Date, owner: string, leaseMs: number, options?: { dueOnly?: boolean }): Promise<T | null>;
  /** Gives the lease back; `retryAt` keeps others off until then. */
  release(id: string, owner: string, retryAt?: Date): Promise<void>;
}

/** The lease a step works under: writes are conditional on `owner` and extend the lease by `ms`. */
export interface Lease {
  readonly owner: string;
  readonly ms: number;
  /** Set by a write that gave the lease back: nothing is left to release then. */
  released: boolean;
}

/** The work itself: one due action on a claimed item. */
export interface DueWork<T> {
  /** Runs one due action; the item after it, or null when nothing is due (or the lease was lost). */
  step(item: T, lease: Lease, deadline?: Date): Promise<T | null>;
}

export interface SchedulerObserver {
  /** `clock`: claimed on request (runNow), after a sandbox clock moved; `scheduler`: by a background pass. */
  claimed(via: 'scheduler' | 'clock'): void;
  error(err: unknown, id: string): void;
}

const NOOP_OBSERVER: SchedulerObserver = { claimed: () => undefined, error: () => undefined };

/**
 * Upper bound of actions in one claim, so one item cannot keep a worker forever: ten years of a sandbox
 * clock's weekly renewals, every retry included, fit.
 */
const MAX_STEPS = 2_500;

export class LeasedScheduler<T extends { id: string }> {
  constructor(
    private readonly store: LeaseStore<T>,
    private readonly work: DueWork<T>,
    private readonly options: SchedulerOptions,
    private readonly realNow: () => Date = () => new Date(),
    private readonly observer: SchedulerObserver = NOOP_OBSERVER,
  ) {}

  /** One pass: claims and processes due items until none is left. Returns how many were processed. */
  async drain(): Promise<number> {
    let processed = 0;
    for (;;) {
      const candidates = await this.store.dueIds(this.realNow(), this.options.batchSize);
      if (candidates.length === 0) return processed;
      // Replicas read the same candidates: start at a random place so they contend less.
      const start = Math.floor(Math.random() * candidates.length);
      const queue = [...candidates.slice(start), ...candidates.slice(0, start)];
      let claimedAny = false;
      const worker = async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          const claimed = await this.store.claim(id, this.realNow(), this.options.owner, this.options.leaseMs, {
            dueOnly: true,
          });
          if (!claimed) continue;
          claimedAny = true;
          this.observer.claimed('scheduler');
          await this.process(claimed).catch((err: unknown) => this.observer.error(err, id));
          processed++;
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, this.options.concurrency) }, worker));
      if (!claimedAny) return processed;
    }
  }

  /**
   * Runs whatever is due on one item now, by the same code as the background pass; if another scheduler
   * holds the lease, waits for it to finish (it runs the same work), for at most two leases or until
   * `deadline`. False when the lease was still held then. A failed step is thrown.
   */
  async runNow(id: string, deadline?: Date): Promise<boolean> {
    const waitUntil = Math.min(this.realNow().getTime() + this.options.leaseMs * 2, deadline?.getTime() ?? Infinity);
    for (;;) {
      const claimed = await this.store.claim(id, this.realNow(), this.options.owner, this.options.leaseMs);
      if (claimed) {
        this.observer.claimed('clock');
        await this.process(claimed, { rethrow: true, deadline });
        return true;
      }
      if (this.realNow().getTime() > waitUntil) return false;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Runs every action due on a claimed item, then gives the lease back. */
  async process(claimed: T, options: { rethrow?: boolean; deadline?: Date } = {}): Promise<T> {
    let item = claimed;
    const lease: Lease = { owner: this.options.owner, ms: this.options.leaseMs, released: false };
    try {
      for (let steps = 0; steps < MAX_STEPS; steps++) {
        const next = await this.work.step(item, lease, options.deadline);
        if (!next) break;
        item = next;
        if (lease.released) return item;
      }
      await this.store.release(item.id, this.options.owner);
      return item;
    } catch (err) {
      const retryAt = new Date(this.realNow().getTime() + this.options.retryAfterErrorMs);
      await this.store.release(item.id, this.options.owner, retryAt).catch(() => undefined);
      if (options.rethrow) throw err;
      this.observer.error(err, item.id);
      return item;
    }
  }
}
