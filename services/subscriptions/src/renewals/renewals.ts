import { PlatformError, SUBJECTS, type Mode, type OutboxEntry } from '@ppay/kernel';
import {
  claimRenewal,
  claimRetry,
  lateOutcomeRecorded,
  periodEnded,
  renewalFailed,
  renewalSucceeded,
} from './lifecycle';
import type { ChargeOutcome, PaymentsPort, RenewalRepository, SubscriptionRepository } from './ports';
import { clockOf, nextActionAt, type SubscriptionRecord } from './subscription';
import { eventFor, subscriptionNotFound } from './subscriptions';

export interface SchedulerOptions {
  /** This process's identity in leases. */
  owner: string;
  /** How long a claimed subscription is ours; every write renews it. A crashed owner's work resumes after it. */
  leaseMs: number;
  /** Subscriptions processed at once by one process. */
  concurrency: number;
  /** How long a subscription is left alone after payments could not answer. */
  retryAfterErrorMs: number;
  /** Candidates read per scan. */
  batchSize: number;
}

export interface SchedulerObserver {
  renewal(outcome: 'succeeded' | 'failed' | 'late', seconds: number): void;
  claimed(via: 'scheduler' | 'clock'): void;
  error(err: unknown, subscriptionId: string): void;
}

const NOOP_OBSERVER: SchedulerObserver = { renewal: () => undefined, claimed: () => undefined, error: () => undefined };

interface Lease {
  released: boolean;
}

/** Upper bound of actions in one claim (10 years of weekly renewals with every retry). */
const MAX_STEPS = 2_500;
/** The sandbox clock moves at most this far in one call (bounded work per request). */
export const MAX_ADVANCE_MS = 10 * 366 * 86_400_000;
const MAX_TO_LENGTH = 40;

/** The idempotency key of a period's charge attempt: never two charges for one (subscription, period, attempt). */
export function renewalKey(subscriptionId: string, periodStart: Date, attempt: number): string {
  return `sub:${subscriptionId}:${periodStart.toISOString()}:${attempt}`;
}

/**
 * The renewal scheduler. It claims due subscriptions with a lease (a conditional update on due time and
 * lease expiry), then runs every action due on the subscription's own clock, one at a time: renew, retry,
 * end a period-end cancellation. Each charge is asked of payments with a key derived from
 * (subscription, period start, attempt) and recorded on the period's renewal record, so a crash, a
 * redelivery or a second scheduler repeats the same charge instead of making another (docs/architecture.md,
 * "Renewals: three documents, no transaction").
 */
export class RenewalScheduler {
  constructor(
    private readonly deps: {
      subscriptions: SubscriptionRepository;
      renewals: RenewalRepository;
      payments: PaymentsPort;
    },
    private readonly options: SchedulerOptions,
    private readonly realNow: () => Date = () => new Date(),
    private readonly observer: SchedulerObserver = NOOP_OBSERVER,
  ) {}

  /** One pass: claims and processes due subscriptions until none is left. Returns how many were processed. */
  async drain(): Promise<number> {
    let processed = 0;
    for (;;) {
      const candidates = await this.deps.subscriptions.dueIds(this.realNow(), this.options.batchSize);
      if (candidates.length === 0) return processed;
      // Replicas read the same candidates: start at a random place so they contend less.
      const start = Math.floor(Math.random() * candidates.length);
      const queue = [...candidates.slice(start), ...candidates.slice(0, start)];
      let claimedAny = false;
      const worker = async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          const claimed = await this.deps.subscriptions.claim(
            id,
            this.realNow(),
            this.options.owner,
            this.options.leaseMs,
            {
              dueOnly: true,
            },
          );
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
   * Sandbox clock (beyond the spec): moves one subscription's clock to `to` and runs everything due up to
   * then before answering. Forward only, at most ten years per call.
   */
  async advance(
    merchantId: number,
    mode: Mode,
    id: string,
    toRaw: string,
    deadline?: Date,
  ): Promise<SubscriptionRecord> {
    if (mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
    const to = parseInstant(toRaw);
    for (let i = 0; ; i++) {
      const rec = await this.deps.subscriptions.findForMerchant(merchantId, mode, id);
      if (!rec) throw subscriptionNotFound();
      const real = this.realNow();
      const clock = clockOf(rec, real);
      if (to.getTime() < clock.getTime()) {
        throw new PlatformError(
          'VALIDATION_FAILED',
          `to must not be before the subscription's clock (${clock.toISOString()})`,
          {
            param: 'to',
          },
        );
      }
      if (to.getTime() - clock.getTime() > MAX_ADVANCE_MS) {
        throw new PlatformError('VALIDATION_FAILED', "to must be at most ten years after the subscription's clock", {
          param: 'to',
        });
      }
      const saved = await this.deps.subscriptions.save({ ...rec, clock_offset_ms: to.getTime() - real.getTime() }, []);
      if (saved) break;
      if (i >= 5) throw new PlatformError('CONFLICT', undefined, { param: 'subscription_id' });
    }
    // Whatever is now due runs here, by the same code as the background scheduler; if a scheduler holds
    // the lease, wait for it to finish (it runs the same work).
    const waitUntil = Math.min(this.realNow().getTime() + this.options.leaseMs * 2, deadline?.getTime() ?? Infinity);
    for (;;) {
      const claimed = await this.deps.subscriptions.claim(id, this.realNow(), this.options.owner, this.options.leaseMs);
      if (claimed) {
        this.observer.claimed('clock');
        await this.process(claimed, { rethrow: true, deadline });
        break;
      }
      if (this.realNow().getTime() > waitUntil) {
        throw new PlatformError('CONFLICT', 'The subscription is being renewed; try again', {
          param: 'subscription_id',
        });
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    const after = await this.deps.subscriptions.findForMerchant(merchantId, mode, id);
    if (!after) throw subscriptionNotFound();
    return after;
  }

  /** Runs every action due on a claimed subscription, then gives the lease back. */
  async process(
    claimed: SubscriptionRecord,
    options: { rethrow?: boolean; deadline?: Date } = {},
  ): Promise<SubscriptionRecord> {
    let rec = claimed;
    // Set by a write that gave the lease back: nothing is left to release then.
    const lease: Lease = { released: false };
    try {
      for (let steps = 0; steps < MAX_STEPS; steps++) {
        const next = await this.step(rec, lease, options.deadline);
        if (!next) break;
        rec = next;
        if (lease.released) return rec;
      }
      await this.deps.subscriptions.release(rec.id, this.options.owner);
      return rec;
    } catch (err) {
      const retryAt = new Date(this.realNow().getTime() + this.options.retryAfterErrorMs);
      await this.deps.subscriptions.release(rec.id, this.options.owner, retryAt).catch(() => undefined);
      if (options.rethrow) throw err;
      this.observer.error(err, rec.id);
      return rec;
    }
  }

  /** One due action; the subscription after it, or null when nothing is due (or the lease was lost). */
  private async step(rec: SubscriptionRecord, lease: Lease, deadline?: Date): Promise<SubscriptionRecord | null> {
    const now = clockOf(rec, this.realNow());
    const at = nextActionAt(rec);
    if (!at || at > now) return null;
    // A subscription whose sandbox clock was moved lives each action at its scheduled instant, so a jump of
    // a year replays the year as it would have happened; otherwise an action happens when it is processed.
    const when = rec.clock_offset_ms > 0 && at.getTime() > 0 ? at : now;
    if (rec.cancel_at_period_end && (rec.status === 'active' || rec.status === 'paused')) {
      const next = periodEnded(rec, when);
      return this.write(next, [eventFor(SUBJECTS.subscriptionCancelled, next, next.cancelled_at ?? when)], lease);
    }
    if (rec.status === 'active') {
      const claimedCharge = await this.write(claimRenewal(rec, when), [], lease);
      return claimedCharge && this.charge(claimedCharge, when, lease, deadline);
    }
    if (rec.status === 'due') {
      // A charge left in flight (crash, lost lease): the same key repeats it, payments answers the same charge.
      if (rec.payment_status === 'pending') return this.charge(rec, when, lease, deadline);
      const claimedRetry = await this.write(claimRetry(rec, when), [], lease);
      return claimedRetry && this.charge(claimedRetry, when, lease, deadline);
    }
    return null;
  }

  private async charge(
    rec: SubscriptionRecord,
    when: Date,
    lease: Lease,
    deadline?: Date,
  ): Promise<SubscriptionRecord | null> {
    const period = rec.pending_period;
    if (!period || !rec.payment_method_id) throw new Error(`subscription ${rec.id} is due without a period or method`);
    const attempt = rec.failed_attempts + 1;
    const key = renewalKey(rec.id, period.start, attempt);
    const started = this.realNow();
    await this.deps.renewals.startAttempt(
      {
        subscription_id: rec.id,
        merchant_id: rec.merchant_id,
        mode: rec.mode,
        period_index: period.index,
        period_start: period.start,
        period_end: period.end,
      },
      attempt,
      key,
      started,
    );
    const outcome = await this.deps.payments.chargeSaved(
      rec.merchant_id,
      rec.mode,
      {
        payment_method_id: rec.payment_method_id,
        price: rec.amount,
        idempotency_key: key,
        product: rec.product,
        frequency: rec.frequency,
        metadata: { subscription_id: rec.id, period_start: period.start.toISOString(), attempt },
        customer: rec.customer,
        customer_present: false,
      },
      deadline,
    );
    await this.deps.renewals.finishAttempt(rec.id, period.start, attempt, {
      charge_id: outcome.charge_id,
      status: outcome.status,
      decline_code: outcome.decline_code,
      finished_at: this.realNow(),
    });
    return this.recordOutcome(rec, outcome, started, when, lease);
  }

  /** Applies a charge's outcome to the subscription it was made for, whatever happened to it meanwhile. */
  private async recordOutcome(
    charged: SubscriptionRecord,
    outcome: ChargeOutcome,
    started: Date,
    when: Date,
    lease: Lease,
  ): Promise<SubscriptionRecord | null> {
    const period = charged.pending_period!;
    const seconds = (this.realNow().getTime() - started.getTime()) / 1000;
    let rec: SubscriptionRecord | null = charged;
    for (let i = 0; rec && i < 5; i++) {
      const now = when;
      let next: SubscriptionRecord;
      let events: OutboxEntry[] = [];
      const stillWaiting =
        rec.status === 'due' && rec.payment_status === 'pending' && rec.pending_period?.index === period.index;
      if (stillWaiting && outcome.status === 'succeeded') {
        next = renewalSucceeded(rec, { paidAt: now });
        events = [eventFor(SUBJECTS.subscriptionRenewed, next, now, outcome.charge_id)];
      } else if (stillWaiting) {
        next = renewalFailed(rec, { failedAt: now, declineCode: outcome.decline_code });
        events = [eventFor(SUBJECTS.subscriptionPaymentFailed, next, now, outcome.charge_id)];
        if (next.status === 'paused') events.push(eventFor(SUBJECTS.subscriptionPaused, next, now));
      } else if (rec.status === 'cancelled' && rec.payment_status === 'pending') {
        // Cancelled while the charge was in flight: the money moved anyway, so it is recorded (lifecycle.ts).
        next = lateOutcomeRecorded(rec, {
          at: now,
          period,
          succeeded: outcome.status === 'succeeded',
          declineCode: outcome.decline_code,
        });
        this.observer.renewal('late', seconds);
        const saved = await this.deps.subscriptions.save(next, []);
        if (saved) return saved;
        rec = await this.deps.subscriptions.findById(charged.id);
        continue;
      } else {
        return null; // already recorded by whoever repeated this charge
      }
      const saved = await this.write(next, events, lease);
      if (saved) {
        this.observer.renewal(outcome.status, seconds);
        return saved;
      }
      rec = await this.deps.subscriptions.findById(charged.id);
    }
    return null;
  }

  /**
   * A write under our lease (renewing it); null when the lease or the version was lost. When the written
   * state has nothing more due on its clock, the same write gives the lease back (one write fewer).
   */
  private async write(
    next: SubscriptionRecord,
    events: OutboxEntry[],
    lease: Lease,
  ): Promise<SubscriptionRecord | null> {
    const real = this.realNow();
    const at = nextActionAt(next);
    const release = at === null || at > clockOf(next, real);
    const until = new Date(real.getTime() + this.options.leaseMs);
    const saved = await this.deps.subscriptions.save(next, events, { owner: this.options.owner, until, release });
    if (saved && release) lease.released = true;
    return saved;
  }
}

/**
 * An RFC 3339 date-time as the gateway's schema accepts it (`T`, `t` or a space; `Z`, `z` or an offset;
 * any fraction; a leap second counts as the next second). Bounded before the pattern runs; no backtracking.
 */
export function parseInstant(raw: string): Date {
  const text = (raw ?? '').trim();
  const m =
    text.length <= MAX_TO_LENGTH
      ? /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|([+-])(\d{2}):?(\d{2}))$/.exec(text)
      : null;
  const invalid = () =>
    new PlatformError('VALIDATION_FAILED', 'to must be an ISO 8601 date-time with a time zone', { param: 'to' });
  if (!m) throw invalid();
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) {
    throw invalid();
  }
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, Math.floor(Number(`0${m[7] ?? ''}`) * 1000));
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  return new Date(at.getTime() - offsetMinutes * 60_000);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
