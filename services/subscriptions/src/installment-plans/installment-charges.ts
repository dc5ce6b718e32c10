import { addMoney, subtractMoney, SUBJECTS, type OutboxEntry } from '@ppay/kernel';
import { lookUpChargeInFlight } from '../charge-look-up';
import type { ChargeOutcome, PaymentsPort } from '../ports';
import type { DueWork, Lease } from '../renewals/leased-scheduler';
import { clockOf } from '../subscriptions/subscription';
import { amountPaid, installmentKey, nextActionAt, planEventFor, type InstallmentPlanRecord } from './installment-plan';
import { chargeNeverMade, claimPart, latePaymentRecorded, partFailed, partSucceeded } from './lifecycle';
import type { InstallmentPlanRepository } from './ports';

export interface InstallmentObserver {
  part(outcome: 'succeeded' | 'failed', seconds: number): void;
  planEnded(status: 'completed' | 'defaulted'): void;
}

const NOOP_OBSERVER: InstallmentObserver = { part: () => undefined, planEnded: () => undefined };

const MAX_WRITE_ROUNDS = 5;

/**
 * The later parts of installment plans, the work of the leased scheduler (renewals/leased-scheduler.ts,
 * the one subscriptions renew on): on a claimed plan, every action due on its own clock, one at a time.
 * Two documents, no transaction (docs/architecture.md, "Installment plans"): the plan records the charge
 * in flight (part, attempt) before payments is asked with the key (plan, part, attempt), so a crash, a
 * lost lease or a second scheduler repeats the same charge instead of making another. Payments is asked
 * to charge only right after a write of the plan, conditional on its version, that found it active: a
 * cancel is a versioned write too, so once it is stored no charge is started. A part left in flight on a
 * cancelled plan is settled by looking its charge up by key: the charge may exist (the money may have
 * moved), or the scheduler may have stopped before asking.
 */
export class InstallmentCharges implements DueWork<InstallmentPlanRecord> {
  constructor(
    private readonly deps: { plans: InstallmentPlanRepository; payments: PaymentsPort },
    private readonly realNow: () => Date = () => new Date(),
    private readonly observer: InstallmentObserver = NOOP_OBSERVER,
  ) {}

  async step(rec: InstallmentPlanRecord, lease: Lease, deadline?: Date): Promise<InstallmentPlanRecord | null> {
    const now = clockOf(rec, this.realNow());
    const at = nextActionAt(rec);
    if (!at || at > now) return null;
    // A plan whose sandbox clock was moved lives each action at its scheduled instant (a jump of months
    // replays them: retries exactly +1, +3, +5 days); otherwise an action happens when it is processed.
    const when = rec.clock_offset_ms > 0 && at.getTime() > 0 ? at : now;
    if (rec.charging) return this.resume(rec, when, lease, deadline);
    const claimed = await this.write(claimPart(rec, when), [], lease);
    return claimed && this.charge(claimed, when, lease, deadline);
  }

  /**
   * A charge left in flight (crash, lost lease). On an active plan the same key repeats it (payments answers
   * the same charge), once a write has shown the plan is still active and ours: the claim only read it, and
   * the merchant may have cancelled since. On a cancelled plan it is looked up.
   */
  private async resume(
    rec: InstallmentPlanRecord,
    when: Date,
    lease: Lease,
    deadline?: Date,
  ): Promise<InstallmentPlanRecord | null> {
    let current = rec;
    if (current.status === 'active') {
      const still = await this.write(current, [], lease);
      if (still) return this.charge(still, when, lease, deadline);
      const fresh = await this.deps.plans.findById(rec.id);
      // Recorded by another scheduler meanwhile, or changed without a cancel: the next claim looks again.
      if (!fresh?.charging || fresh.status === 'active') return null;
      current = fresh;
    }
    return this.settle(current, when, lease, deadline);
  }

  /**
   * The part in flight on a cancelled plan, settled by a look-up (charge-look-up.ts): found succeeded or
   * declined, that outcome is recorded (a paid part stays paid, as any paid part of a cancelled plan); found
   * in flight, that charge is finished by its key; not found, nothing was charged: the part is cancelled.
   */
  private async settle(
    rec: InstallmentPlanRecord,
    when: Date,
    lease: Lease,
    deadline?: Date,
  ): Promise<InstallmentPlanRecord | null> {
    const { number, attempt } = rec.charging!;
    const started = this.realNow();
    const outcome = await lookUpChargeInFlight(
      this.deps.payments,
      {
        merchantId: rec.merchant_id,
        mode: rec.mode,
        idempotencyKey: installmentKey(rec.id, number, attempt),
        amount: rec.parts[number - 1]!.amount,
      },
      () => this.ask(rec, deadline),
      deadline,
    );
    if (!outcome) return this.write(chargeNeverMade(rec), [], lease);
    return this.recordOutcome(rec, outcome, started, when, lease);
  }

  private async charge(
    rec: InstallmentPlanRecord,
    when: Date,
    lease: Lease,
    deadline?: Date,
  ): Promise<InstallmentPlanRecord | null> {
    const started = this.realNow();
    const outcome = await this.ask(rec, deadline);
    return this.recordOutcome(rec, outcome, started, when, lease);
  }

  /** Asks payments for the charge in flight, with its key: a repeat answers the same charge. */
  private ask(rec: InstallmentPlanRecord, deadline?: Date): Promise<ChargeOutcome> {
    const { number, attempt } = rec.charging!;
    const part = rec.parts[number - 1]!;
    return this.deps.payments.chargeSaved(
      rec.merchant_id,
      rec.mode,
      {
        payment_method_id: rec.payment_method_id,
        price: part.amount,
        idempotency_key: installmentKey(rec.id, number, attempt),
        product: rec.product,
        frequency: null,
        metadata: { installment_plan_id: rec.id, installment_number: number, attempt },
        customer: rec.customer,
        customer_present: false,
        installment: {
          plan_id: rec.id,
          number,
          count: rec.count,
          remaining_if_paid: subtractMoney(rec.total, addMoney(amountPaid(rec), part.amount)),
        },
      },
      deadline,
    );
  }

  /** Applies a charge's outcome to the plan it was made for, whatever happened to the plan meanwhile. */
  private async recordOutcome(
    charged: InstallmentPlanRecord,
    outcome: ChargeOutcome,
    started: Date,
    when: Date,
    lease: Lease,
  ): Promise<InstallmentPlanRecord | null> {
    const inFlight = charged.charging!;
    let rec: InstallmentPlanRecord | null = charged;
    for (let i = 0; rec && i < MAX_WRITE_ROUNDS; i++) {
      if (rec.charging?.number !== inFlight.number || rec.charging.attempt !== inFlight.attempt) {
        // Already recorded by whoever repeated this charge (another scheduler after our lease ran out), or
        // settled as never made by a look-up that came before our request reached payments.
        const late =
          outcome.status === 'succeeded'
            ? latePaymentRecorded(rec, inFlight.number, { chargeId: outcome.charge_id, paidAt: when })
            : null;
        if (!late) return null;
        // Under no lease: whoever settled the plan released it, and a cancelled plan has nothing due.
        const saved = await this.deps.plans.save(late, []);
        if (saved) {
          this.observer.part(outcome.status, (this.realNow().getTime() - started.getTime()) / 1000);
          return null;
        }
        rec = await this.deps.plans.findById(charged.id);
        continue;
      }
      const next =
        outcome.status === 'succeeded'
          ? partSucceeded(rec, { chargeId: outcome.charge_id, paidAt: when })
          : partFailed(rec, { chargeId: outcome.charge_id, failedAt: when, declineCode: outcome.decline_code });
      const events: OutboxEntry[] = [];
      if (next.status !== rec.status && next.status === 'completed') {
        events.push(planEventFor(SUBJECTS.installmentPlanCompleted, next, when));
      } else if (next.status !== rec.status && next.status === 'defaulted') {
        events.push(planEventFor(SUBJECTS.installmentPlanDefaulted, next, when));
      }
      const saved = await this.write(next, events, lease);
      if (saved) {
        this.observer.part(outcome.status, (this.realNow().getTime() - started.getTime()) / 1000);
        if (saved.status === 'completed' || saved.status === 'defaulted') {
          if (events.length) this.observer.planEnded(saved.status);
        }
        return saved;
      }
      // The merchant cancelled meanwhile (a new version), or our lease is gone: read it again.
      rec = await this.deps.plans.findById(charged.id);
    }
    return null;
  }

  /**
   * A write under our lease (renewing it); null when the lease or the version was lost. When the written
   * plan has nothing more due on its clock, the same write gives the lease back.
   */
  private async write(
    next: InstallmentPlanRecord,
    events: OutboxEntry[],
    lease: Lease,
  ): Promise<InstallmentPlanRecord | null> {
    const real = this.realNow();
    const at = nextActionAt(next);
    const release = at === null || at > clockOf(next, real);
    const until = new Date(real.getTime() + lease.ms);
    const saved = await this.deps.plans.save(next, events, { owner: lease.owner, until, release });
    if (saved && release) lease.released = true;
    return saved;
  }
}
