import { SUBJECTS, type OutboxEntry } from '@ppay/kernel';
import { lookUpChargeInFlight } from '../charge-look-up';
import type { ChargeOutcome, PaymentsPort } from '../ports';
import {
  chargeNeverMade,
  claimRenewal,
  claimRetry,
  lateOutcomeRecorded,
  periodEnded,
  renewalFailed,
  renewalSucceeded,
} from '../subscriptions/lifecycle';
import type { SubscriptionRepository } from '../subscriptions/ports';
import { clockOf, eventFor, nextActionAt, type SubscriptionRecord } from '../subscriptions/subscription';
import type { DueWork, Lease } from './leased-scheduler';
import type { RenewalRepository } from './ports';
import { renewalKey } from './renewal';

export interface RenewalObserver {
  renewal(outcome: 'succeeded' | 'failed' | 'late', seconds: number): void;
}

const NOOP_OBSERVER: RenewalObserver = { renewal: () => undefined };

/**
 * Subscription renewals, the work of the leased scheduler (leased-scheduler.ts): on a claimed subscription,
 * every action due on its own clock, one at a time: renew, retry, end a period-end cancellation, settle a
 * charge left in flight on a cancelled subscription. Each charge is asked of payments with a key derived
 * from (subscription, period start, attempt) and recorded on the period's renewal record, so a crash, a
 * redelivery or a second scheduler repeats the same charge instead of making another (docs/architecture.md,
 * "Renewals: three documents, no transaction"); once the subscription is cancelled it is only looked up.
 */
export class SubscriptionRenewals implements DueWork<SubscriptionRecord> {
  constructor(
    private readonly deps: {
      subscriptions: SubscriptionRepository;
      renewals: RenewalRepository;
      payments: PaymentsPort;
    },
    private readonly realNow: () => Date = () => new Date(),
    private readonly observer: RenewalObserver = NOOP_OBSERVER,
  ) {}

  /** One due action; the subscription after it, or null when nothing is due (or the lease was lost). */
  async step(rec: SubscriptionRecord, lease: Lease, deadline?: Date): Promise<SubscriptionRecord | null> {
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
    if (rec.status === 'cancelled' && rec.payment_status === 'pending') return this.settle(rec, when, lease, deadline);
    if (rec.status === 'active') {
      const claimedCharge = await this.write(claimRenewal(rec, when), [], lease);
      return claimedCharge && this.charge(claimedCharge, when, lease, deadline);
    }
    if (rec.status === 'due') {
      // A charge left in flight (crash, lost lease): the same key repeats it, payments answers the same
      // charge. The claim only read the subscription, and the merchant may have cancelled since: the repeat
      // is asked for only after a write conditional on the version it read shows it is still due and ours.
      if (rec.payment_status === 'pending') {
        const still = await this.write(rec, [], lease);
        return still && this.charge(still, when, lease, deadline);
      }
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
    const started = this.realNow();
    await this.startAttempt(rec, started);
    const outcome = await this.ask(rec, deadline);
    await this.finishAttempt(rec, outcome);
    return this.recordOutcome(rec, outcome, started, when, lease);
  }

  /**
   * The renewal in flight on a cancelled subscription, settled by a look-up (charge-look-up.ts): found
   * succeeded or declined, that outcome is recorded on the period's renewal record and the subscription
   * (which stays cancelled); found in flight at payments, that charge is finished by its key; not found,
   * nothing was charged and the charge is no longer in flight.
   */
  private async settle(
    rec: SubscriptionRecord,
    when: Date,
    lease: Lease,
    deadline?: Date,
  ): Promise<SubscriptionRecord | null> {
    const started = this.realNow();
    const outcome = await lookUpChargeInFlight(
      this.deps.payments,
      { merchantId: rec.merchant_id, mode: rec.mode, idempotencyKey: inFlight(rec).key, amount: rec.amount },
      () => this.ask(rec, deadline),
      deadline,
    );
    if (!outcome) return this.write(chargeNeverMade(rec), [], lease);
    // The period's record, made here if the scheduler stopped before making it.
    await this.startAttempt(rec, started);
    await this.finishAttempt(rec, outcome);
    return this.recordOutcome(rec, outcome, started, when, lease);
  }

  /** Asks payments for the charge in flight, with its key: a repeat answers the same charge. */
  private ask(rec: SubscriptionRecord, deadline?: Date): Promise<ChargeOutcome> {
    const { period, attempt, key, paymentMethodId } = inFlight(rec);
    return this.deps.payments.chargeSaved(
      rec.merchant_id,
      rec.mode,
      {
        payment_method_id: paymentMethodId,
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
  }

  private startAttempt(rec: SubscriptionRecord, at: Date): Promise<void> {
    const { period, attempt, key } = inFlight(rec);
    return this.deps.renewals.startAttempt(
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
      at,
    );
  }

  private finishAttempt(rec: SubscriptionRecord, outcome: ChargeOutcome): Promise<void> {
    const { period, attempt } = inFlight(rec);
    return this.deps.renewals.finishAttempt(rec.id, period.start, attempt, {
      charge_id: outcome.charge_id,
      status: outcome.status,
      decline_code: outcome.decline_code,
      finished_at: this.realNow(),
    });
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
      } else if (rec.status === 'cancelled') {
        // Cancelled while the charge was in flight: the money moved anyway, so it is recorded (lifecycle.ts),
        // and a payment is announced as a renewal is: the customer has paid access to the period's end.
        const late = lateOutcomeRecorded(rec, {
          at: now,
          period,
          succeeded: outcome.status === 'succeeded',
          declineCode: outcome.decline_code,
        });
        if (!late) return null; // already recorded by whoever settled this charge
        if (outcome.status === 'succeeded') {
          events = [eventFor(SUBJECTS.subscriptionRenewed, late, now, outcome.charge_id)];
        }
        // Under no lease: a scheduler that settled the charge meanwhile may hold it, and this must land.
        const saved = await this.deps.subscriptions.save(late, events);
        if (saved) {
          this.observer.renewal('late', seconds);
          return saved;
        }
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
    const until = new Date(real.getTime() + lease.ms);
    const saved = await this.deps.subscriptions.save(next, events, { owner: lease.owner, until, release });
    if (saved && release) lease.released = true;
    return saved;
  }
}

/** The charge in flight: the period it pays for, its attempt number and key, the method it charges. */
function inFlight(rec: SubscriptionRecord) {
  const period = rec.pending_period;
  if (!period || !rec.payment_method_id)
    throw new Error(`subscription ${rec.id} has a charge in flight without a period or method`);
  const attempt = rec.failed_attempts + 1;
  return { period, attempt, key: renewalKey(rec.id, period.start, attempt), paymentMethodId: rec.payment_method_id };
}
