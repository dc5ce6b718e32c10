import { amountPaid, amountRemaining, installmentKey, nextActionAt, nextPaymentDate } from './installment-plan';
import { cancelPlan, claimPart, partFailed, partSucceeded } from './lifecycle';
import { PAID_AT, testPlan } from './plan-fixtures.test-util';

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);
const statuses = (p: { parts: { status: string }[] }) => p.parts.map((x) => x.status);
const conflict = expect.objectContaining({ code: 'CONFLICT' });

describe('installment plan: a new plan', () => {
  it('is active with part 1 paid at checkout and the others on the calendar (month ends clamp)', () => {
    const plan = testPlan();
    expect(plan.status).toBe('active');
    expect(plan.parts.map((p) => [p.number, p.amount.amount, p.due_at.toISOString(), p.status])).toEqual([
      [1, 100_001, PAID_AT, 'paid'],
      [2, 100_000, '2026-02-28T10:00:00.000Z', 'scheduled'],
      [3, 100_000, '2026-03-31T10:00:00.000Z', 'scheduled'],
    ]);
    expect(amountPaid(plan)).toEqual({ amount: 100_001, currency: 'NGN' });
    expect(amountRemaining(plan)).toEqual({ amount: 200_000, currency: 'NGN' });
    expect(nextActionAt(plan)).toEqual(at('2026-02-28T10:00:00.000Z'));
    expect(nextPaymentDate(plan)).toEqual(at('2026-02-28T10:00:00.000Z'));
    expect(installmentKey(plan.id, 2, 1)).toBe('inst:ip_1:2:1');
  });
});

describe('installment plan transitions', () => {
  it('active → each part once → completed after the last', () => {
    let plan = testPlan();
    expect(() => claimPart(plan, at('2026-02-28T09:59:59Z'))).toThrow(conflict);
    plan = claimPart(plan, at('2026-02-28T10:00:00Z'));
    expect(plan.charging).toEqual({ number: 2, attempt: 1 });
    expect(statuses(plan)).toEqual(['paid', 'pending', 'scheduled']);
    expect(nextActionAt(plan)).toEqual(new Date(0)); // in flight: finish at once
    expect(() => claimPart(plan, at('2026-03-31T10:00:00Z'))).toThrow(conflict); // one charge at a time
    plan = partSucceeded(plan, { chargeId: 'ch_2', paidAt: at('2026-02-28T10:00:01Z') });
    expect(plan).toMatchObject({ status: 'active', charging: null });
    expect(plan.parts[1]).toMatchObject({ status: 'paid', charge_id: 'ch_2' });
    expect(() => partSucceeded(plan, { chargeId: 'ch_2', paidAt: at('2026-02-28T10:00:01Z') })).toThrow(conflict);
    plan = partSucceeded(claimPart(plan, at('2026-03-31T10:00:00Z')), {
      chargeId: 'ch_3',
      paidAt: at('2026-03-31T10:00:02Z'),
    });
    expect(plan).toMatchObject({ status: 'completed', completed_at: at('2026-03-31T10:00:02Z') });
    expect(amountRemaining(plan).amount).toBe(0);
    expect(nextActionAt(plan)).toBeNull();
    expect(() => claimPart(plan, at('2027-01-01T00:00:00Z'))).toThrow(conflict);
    expect(() => cancelPlan(plan, at('2027-01-01T00:00:00Z'))).toThrow(conflict);
  });

  it('dunning: a declined part is retried +1, +3, +5 days from its first failure, then the plan defaults', () => {
    let plan = testPlan();
    const first = at('2026-02-28T10:00:00Z');
    const retries: string[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const due = nextActionAt(plan)!;
      plan = claimPart(plan, due);
      expect(plan.charging).toEqual({ number: 2, attempt });
      // Each retry runs a little late: the schedule still counts from the first failure.
      plan = partFailed(plan, {
        chargeId: `ch_${attempt}`,
        failedAt: new Date(due.getTime() + 60_000),
        declineCode: 'card_declined',
      });
      if (plan.status === 'active') retries.push(plan.parts[1]!.next_retry_at!.toISOString());
    }
    const firstFailure = first.getTime() + 60_000;
    expect(retries).toEqual([1, 3, 5].map((d) => new Date(firstFailure + d * DAY).toISOString()));
    expect(plan).toMatchObject({ status: 'defaulted', default_reason: 'retries_exhausted', charging: null });
    expect(statuses(plan)).toEqual(['paid', 'failed', 'cancelled']);
    expect(plan.parts[1]).toMatchObject({ failed_attempts: 4, decline_reason: 'card_declined', charge_id: 'ch_4' });
    expect(nextActionAt(plan)).toBeNull();
    expect(() => claimPart(plan, at('2027-01-01T00:00:00Z'))).toThrow(conflict);
  });

  it('a retry that succeeds puts the plan back on its schedule (the next part keeps its own date)', () => {
    let plan = claimPart(testPlan(), at('2026-02-28T10:00:00Z'));
    plan = partFailed(plan, {
      chargeId: 'ch_a',
      failedAt: at('2026-02-28T10:00:00Z'),
      declineCode: 'insufficient_funds',
    });
    expect(plan.parts[1]).toMatchObject({ status: 'retrying', next_retry_at: at('2026-03-01T10:00:00Z') });
    expect(nextPaymentDate(plan)).toEqual(at('2026-03-01T10:00:00Z'));
    plan = partSucceeded(claimPart(plan, at('2026-03-01T10:00:00Z')), {
      chargeId: 'ch_b',
      paidAt: at('2026-03-01T10:00:00Z'),
    });
    expect(plan.parts[1]).toMatchObject({ status: 'paid', charge_id: 'ch_b', next_retry_at: null, failed_attempts: 1 });
    expect(nextActionAt(plan)).toEqual(at('2026-03-31T10:00:00Z'));
  });

  it('a hard decline defaults at once', () => {
    const plan = partFailed(claimPart(testPlan(), at('2026-02-28T10:00:00Z')), {
      chargeId: 'ch_x',
      failedAt: at('2026-02-28T10:00:00Z'),
      declineCode: 'stolen_card',
    });
    expect(plan).toMatchObject({ status: 'defaulted', default_reason: 'hard_decline' });
    expect(statuses(plan)).toEqual(['paid', 'failed', 'cancelled']);
  });

  it('cancel stops future parts, keeps paid ones, and is idempotent', () => {
    const now = at('2026-02-10T00:00:00Z');
    const { plan, changed } = cancelPlan(testPlan(), now);
    expect(changed).toBe(true);
    expect(plan).toMatchObject({ status: 'cancelled', cancelled_at: now });
    expect(statuses(plan)).toEqual(['paid', 'cancelled', 'cancelled']);
    expect(nextActionAt(plan)).toBeNull();
    expect(nextPaymentDate(plan)).toBeNull();
    expect(cancelPlan(plan, at('2026-03-01T00:00:00Z'))).toEqual({ plan, changed: false });
    expect(() => claimPart(plan, at('2026-03-01T00:00:00Z'))).toThrow(conflict);
  });

  it('a charge in flight when the merchant cancels is recorded when it lands, and nothing more is charged', () => {
    const charging = claimPart(testPlan(), at('2026-02-28T10:00:00Z'));
    const { plan: cancelled } = cancelPlan(charging, at('2026-02-28T10:00:00Z'));
    expect(statuses(cancelled)).toEqual(['paid', 'pending', 'cancelled']);
    expect(nextActionAt(cancelled)).toEqual(new Date(0)); // the outcome is still to be recorded
    const paid = partSucceeded(cancelled, { chargeId: 'ch_2', paidAt: at('2026-02-28T10:00:01Z') });
    expect(paid).toMatchObject({ status: 'cancelled', charging: null, completed_at: null });
    expect(statuses(paid)).toEqual(['paid', 'paid', 'cancelled']);
    expect(nextActionAt(paid)).toBeNull();
    const declined = partFailed(cancelled, {
      chargeId: 'ch_2',
      failedAt: at('2026-02-28T10:00:01Z'),
      declineCode: 'card_declined',
    });
    expect(declined).toMatchObject({ status: 'cancelled', charging: null });
    expect(statuses(declined)).toEqual(['paid', 'cancelled', 'cancelled']);
  });
});
