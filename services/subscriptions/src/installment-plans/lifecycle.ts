import { PlatformError } from '@ppay/kernel';
import { decideAfterFailure } from '../renewals/dunning';
import { currentPart, type InstallmentPart, type InstallmentPlanRecord, type PlanStatus } from './installment-plan';

/**
 * An installment plan's life as pure transitions: `active` → `completed` | `defaulted` | `cancelled`.
 * Each takes the plan and returns the next one, or throws CONFLICT when the action is illegal now; the
 * repository writes a result only while the stored plan is still the version it was computed from, so
 * two schedulers, or a scheduler and the merchant, cannot both win.
 */

export function planConflict(status: PlanStatus, action: string): PlatformError {
  return new PlatformError('CONFLICT', `Installment plan is ${status}; cannot ${action}`, {
    param: 'plan_id',
    detail: status,
  });
}

function withPart(rec: InstallmentPlanRecord, number: number, change: Partial<InstallmentPart>): InstallmentPart[] {
  return rec.parts.map((p) => (p.number === number ? { ...p, ...change } : p));
}

/** The part in flight, or CONFLICT. */
function charging(rec: InstallmentPlanRecord, action: string): InstallmentPart {
  const part = rec.charging && rec.parts.find((p) => p.number === rec.charging!.number);
  if (!part) throw planConflict(rec.status, `${action} without a charge in flight`);
  return part;
}

/**
 * active → active with the current part's charge in flight: its due date (or its retry) has come. The
 * attempt number follows the part's recorded failures, so an attempt is made only after the previous
 * one's failure is written: one part can never have two attempts in flight.
 */
export function claimPart(rec: InstallmentPlanRecord, now: Date): InstallmentPlanRecord {
  if (rec.status !== 'active') throw planConflict(rec.status, 'charge a part');
  if (rec.charging) throw planConflict(rec.status, 'charge a part while another charge is in flight');
  const part = currentPart(rec);
  if (!part) throw planConflict(rec.status, 'charge a part: every part is paid');
  const due = part.next_retry_at ?? part.due_at;
  if (due > now) throw planConflict(rec.status, `charge part ${part.number} before ${due.toISOString()}`);
  return {
    ...rec,
    charging: { number: part.number, attempt: part.failed_attempts + 1 },
    parts: withPart(rec, part.number, { status: 'pending', next_retry_at: null }),
  };
}

/**
 * The charge in flight succeeded: its part is paid. The last part completes an active plan. A plan
 * cancelled while the charge was in flight records the payment (the money moved) and stays cancelled.
 */
export function partSucceeded(
  rec: InstallmentPlanRecord,
  input: { chargeId: string; paidAt: Date },
): InstallmentPlanRecord {
  const part = charging(rec, 'record a payment');
  const parts = withPart(rec, part.number, {
    status: 'paid',
    charge_id: input.chargeId,
    paid_at: input.paidAt,
    next_retry_at: null,
    decline_reason: null,
  });
  const completed = rec.status === 'active' && parts.every((p) => p.status === 'paid');
  return {
    ...rec,
    parts,
    charging: null,
    ...(completed && { status: 'completed' as const, completed_at: input.paidAt }),
  };
}

/**
 * The charge in flight was declined. An active plan retries the part on the dunning schedule (+1, +3, +5
 * days from its first failure; a hard decline is not retried); when the schedule is exhausted the plan is
 * `defaulted`, that part `failed` and every later part `cancelled`: nothing more is charged. A plan
 * cancelled meanwhile just records the decline.
 */
export function partFailed(
  rec: InstallmentPlanRecord,
  input: { chargeId: string; failedAt: Date; declineCode: string | null },
): InstallmentPlanRecord {
  const part = charging(rec, 'record a decline');
  const recorded = { charge_id: input.chargeId, decline_reason: input.declineCode };
  if (rec.status !== 'active') {
    return { ...rec, charging: null, parts: withPart(rec, part.number, { ...recorded, status: 'cancelled' }) };
  }
  const failedAttempts = part.failed_attempts + 1;
  const firstFailureAt = part.first_failure_at ?? input.failedAt;
  const decision = decideAfterFailure({ firstFailureAt, failedAttempts, declineCode: input.declineCode });
  const dunning = { ...recorded, failed_attempts: failedAttempts, first_failure_at: firstFailureAt };
  if (decision.action === 'retry') {
    return {
      ...rec,
      charging: null,
      parts: withPart(rec, part.number, { ...dunning, status: 'retrying', next_retry_at: decision.at }),
    };
  }
  return {
    ...rec,
    status: 'defaulted',
    defaulted_at: input.failedAt,
    default_reason: decision.cause,
    charging: null,
    parts: rec.parts.map((p) => {
      if (p.number === part.number) return { ...p, ...dunning, status: 'failed', next_retry_at: null };
      return p.number > part.number ? { ...p, status: 'cancelled' } : p;
    }),
  };
}

/**
 * The merchant cancels: no later part is charged. Paid parts stay paid (refunds are the merchant's
 * call). A part whose charge is in flight keeps it: the charge may exist, so the scheduler settles it by
 * looking the charge up (chargeFound / chargeNeverMade), never by charging. A second cancel answers the
 * cancelled plan unchanged; a completed or defaulted plan cannot be cancelled.
 */
export function cancelPlan(rec: InstallmentPlanRecord, now: Date): { plan: InstallmentPlanRecord; changed: boolean } {
  if (rec.status === 'cancelled') return { plan: rec, changed: false };
  if (rec.status !== 'active') throw planConflict(rec.status, 'cancel');
  return {
    plan: {
      ...rec,
      status: 'cancelled',
      cancelled_at: now,
      parts: rec.parts.map((p) =>
        p.status === 'paid' || p.status === 'pending' ? p : { ...p, status: 'cancelled', next_retry_at: null },
      ),
    },
    changed: true,
  };
}

/**
 * A cancelled plan's part was in flight, and payments holds no charge by its key: the scheduler stopped
 * before asking (a crash). Nothing was charged and nothing will be: the part is cancelled.
 */
export function chargeNeverMade(rec: InstallmentPlanRecord): InstallmentPlanRecord {
  if (rec.status !== 'cancelled') throw planConflict(rec.status, 'give up a charge in flight');
  const part = charging(rec, 'give up a charge');
  return { ...rec, charging: null, parts: withPart(rec, part.number, { status: 'cancelled', next_retry_at: null }) };
}

/**
 * A payment that landed after its part was settled as never charged (a scheduler asked payments after
 * another had looked the charge up and found none): the money moved, so the part is paid, and the plan
 * stays cancelled. Null when there is nothing to record: the part is paid, or this is the charge already
 * recorded on it (a decline of it cancelled it).
 */
export function latePaymentRecorded(
  rec: InstallmentPlanRecord,
  number: number,
  input: { chargeId: string; paidAt: Date },
): InstallmentPlanRecord | null {
  const part = rec.parts.find((p) => p.number === number);
  if (rec.status !== 'cancelled' || rec.charging?.number === number) return null;
  if (!part || part.status !== 'cancelled' || part.charge_id === input.chargeId) return null;
  return {
    ...rec,
    parts: withPart(rec, number, {
      status: 'paid',
      charge_id: input.chargeId,
      paid_at: input.paidAt,
      decline_reason: null,
    }),
  };
}
