import type { OffSessionCharge } from '../ports';
import { installmentKey, type InstallmentPlanRecord } from './installment-plan';
import { claimPart } from './lifecycle';
import { installmentCheckout } from './plan-fixtures.test-util';
import { keysAsked, planSetup, planSubjects } from './plan-kit.test-util';

const DAY = 86_400_000;

/** The charge a scheduler asks for the part in flight (as installment-charges.ts builds it). */
const chargeOf = (p: InstallmentPlanRecord): OffSessionCharge => ({
  payment_method_id: p.payment_method_id,
  price: p.parts[p.charging!.number - 1]!.amount,
  idempotency_key: installmentKey(p.id, p.charging!.number, p.charging!.attempt),
  product: p.product,
  frequency: null,
  metadata: {},
  customer: p.customer,
  customer_present: false,
});
/** From the checkout (Jan 31 10:00) to just after part 2 (Feb 28) and part 3 (Mar 31). */
const TO_PART_2 = 28 * DAY;
const TO_PART_3 = 31 * DAY;

describe('installment checkout → plan', () => {
  it('creates the plan once, active with part 1 paid, and a redelivery finds it', async () => {
    const { checkouts, plans } = planSetup();
    const plan = await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    expect(plan).toMatchObject({
      id: 'ip_1',
      status: 'active',
      checkout_session_id: 'cs_1',
      payment_method_id: 'pm_1',
    });
    expect(plan.parts.map((p) => p.status)).toEqual(['paid', 'scheduled', 'scheduled']);
    const again = await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    expect(again.version).toBe(plan.version);
    expect(plans.docs.size).toBe(1);
    expect(planSubjects(plans)).toEqual(['created']);
    expect(plans.events[0]!.data).toMatchObject({
      plan_id: 'ip_1',
      status: 'active',
      amount_paid: { amount: 100_001, currency: 'NGN' },
      amount_remaining: { amount: 200_000, currency: 'NGN' },
      parts: [
        { number: 1, status: 'paid', charge_id: 'ch_first' },
        { number: 2, status: 'scheduled', due_at: '2026-02-28T10:00:00.000Z' },
        { number: 3, status: 'scheduled', due_at: '2026-03-31T10:00:00.000Z' },
      ],
    });
  });
});

describe('the scheduler charges each later part exactly once', () => {
  it('on its due date, with the key (plan, part, attempt) and the installment reference, then completes', async () => {
    const { checkouts, scheduler, payments, plans, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    await scheduler().drain();
    expect(payments.calls).toHaveLength(0);
    tick(TO_PART_2 - 1);
    await scheduler().drain();
    expect(payments.calls).toHaveLength(0);
    tick(1);
    await scheduler().drain();
    await scheduler('b').drain();
    expect(keysAsked(payments)).toEqual([installmentKey('ip_1', 2, 1)]);
    expect(payments.calls[0]).toMatchObject({
      price: { amount: 100_000, currency: 'NGN' },
      frequency: null,
      customer_present: false,
      metadata: { installment_plan_id: 'ip_1', installment_number: 2, attempt: 1 },
      installment: { plan_id: 'ip_1', number: 2, count: 3, remaining_if_paid: { amount: 100_000, currency: 'NGN' } },
    });
    tick(TO_PART_3);
    await scheduler().drain();
    expect(keysAsked(payments)).toEqual([installmentKey('ip_1', 2, 1), installmentKey('ip_1', 3, 1)]);
    expect(payments.calls[1]!.installment!.remaining_if_paid).toEqual({ amount: 0, currency: 'NGN' });
    const plan = (await plans.findById('ip_1'))!;
    expect(plan).toMatchObject({ status: 'completed', charging: null });
    expect(plan.parts.map((p) => [p.status, p.charge_id])).toEqual([
      ['paid', 'ch_first'],
      ['paid', 'ch_1'],
      ['paid', 'ch_2'],
    ]);
    expect(planSubjects(plans)).toEqual(['created', 'completed']);
    tick(365 * DAY);
    await scheduler().drain();
    expect(payments.calls).toHaveLength(2);
  });

  it('a catch-up after an outage charges every overdue part in order, one claim', async () => {
    const { checkouts, scheduler, payments, plans, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout({ count: 4 }));
    tick(200 * DAY);
    await scheduler().drain();
    expect(keysAsked(payments)).toEqual([2, 3, 4].map((n) => installmentKey('ip_1', n, 1)));
    expect((await plans.findById('ip_1'))!.status).toBe('completed');
  });

  it('a crash after the charge (its outcome not written) repeats the same key and records one payment', async () => {
    const { checkouts, scheduler, payments, plans, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    tick(TO_PART_2);
    // The claim write succeeds, the outcome write fails: the charge exists, the plan still shows it in flight.
    const realSave = plans.save.bind(plans);
    let saves = 0;
    plans.save = async (...args) => {
      if (++saves === 2) throw new Error('killed');
      return realSave(...args);
    };
    await scheduler().drain();
    expect((await plans.findById('ip_1'))!.charging).toEqual({ number: 2, attempt: 1 });
    expect(payments.succeeded()).toBe(1);
    tick(5_000); // the scheduler's retry delay after an error
    await scheduler('b').drain();
    expect(keysAsked(payments)).toEqual([installmentKey('ip_1', 2, 1), installmentKey('ip_1', 2, 1)]);
    expect(payments.succeeded()).toBe(1);
    const plan = (await plans.findById('ip_1'))!;
    expect(plan.charging).toBeNull();
    expect(plan.parts[1]).toMatchObject({ status: 'paid', charge_id: 'ch_1' });
  });

  it('a scheduler killed mid-charge holding the lease: another takes over after it and repeats the same key', async () => {
    const { checkouts, scheduler, payments, plans, tick, realNow } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    tick(TO_PART_2);
    // 'dead' claims the plan, marks part 2 in flight, asks payments, and is killed before recording it.
    const claimed = (await plans.claim('ip_1', realNow(), 'dead', 30_000))!;
    const inFlight = claimPart(claimed, realNow());
    await plans.save(inFlight, [], { owner: 'dead', until: new Date(realNow().getTime() + 30_000) });
    await payments.chargeSaved(7, 'sandbox', chargeOf(inFlight));
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(1); // the lease keeps b off
    tick(30_000);
    await scheduler('b').drain();
    expect(keysAsked(payments)).toEqual([installmentKey('ip_1', 2, 1), installmentKey('ip_1', 2, 1)]);
    expect(payments.succeeded()).toBe(1);
    expect((await plans.findById('ip_1'))!.parts[1]).toMatchObject({ status: 'paid', charge_id: 'ch_1' });
  });

  it('two schedulers draining at once never charge a part twice', async () => {
    const { checkouts, scheduler, payments, plans, tick } = planSetup({ concurrency: 4 });
    for (let i = 0; i < 20; i++) {
      await checkouts.checkoutCompleted('sandbox', installmentCheckout({ plan_id: `ip_${i}`, session_id: `cs_${i}` }));
    }
    tick(TO_PART_2 + TO_PART_3);
    await Promise.all([scheduler('a').drain(), scheduler('b').drain(), scheduler('c').drain()]);
    expect(payments.succeeded()).toBe(40);
    expect(new Set(keysAsked(payments)).size).toBe(40);
    expect([...plans.docs.values()].every((d) => d.rec.status === 'completed')).toBe(true);
  });
});

describe('declines, cancel', () => {
  it('a declined part is retried +1, +3, +5 days, then the plan defaults and nothing more is charged', async () => {
    const { checkouts, scheduler, payments, plans, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    payments.decline = 'card_declined';
    tick(TO_PART_2);
    await scheduler().drain();
    for (const days of [1, 2, 2]) {
      tick(days * DAY);
      await scheduler().drain();
    }
    expect(keysAsked(payments)).toEqual([1, 2, 3, 4].map((a) => installmentKey('ip_1', 2, a)));
    const plan = (await plans.findById('ip_1'))!;
    expect(plan).toMatchObject({ status: 'defaulted', default_reason: 'retries_exhausted' });
    expect(plan.parts.map((p) => p.status)).toEqual(['paid', 'failed', 'cancelled']);
    expect(planSubjects(plans)).toEqual(['created', 'defaulted']);
    tick(365 * DAY);
    await scheduler().drain();
    expect(payments.calls).toHaveLength(4);
  });

  it('cancel stops the later parts; a second cancel answers the same plan; another merchant gets 404', async () => {
    const { checkouts, service, scheduler, payments, plans, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    const cancelled = await service.cancel(7, 'sandbox', 'ip_1');
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_at: new Date('2026-01-31T10:00:00Z') });
    expect((await service.cancel(7, 'sandbox', 'ip_1')).version).toBe(cancelled.version);
    await expect(service.cancel(8, 'sandbox', 'ip_1')).rejects.toMatchObject({ code: 'INSTALLMENT_PLAN_NOT_FOUND' });
    await expect(service.get(7, 'live', 'ip_1')).rejects.toMatchObject({ code: 'INSTALLMENT_PLAN_NOT_FOUND' });
    tick(365 * DAY);
    await scheduler().drain();
    expect(payments.calls).toHaveLength(0);
    expect(planSubjects(plans)).toEqual(['created', 'cancelled']);
  });

  it('a cancel while a part is being charged: the payment is recorded when it lands, nothing after it', async () => {
    const { checkouts, service, scheduler, payments, plans, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    tick(TO_PART_2);
    const charge = payments.chargeSaved.bind(payments);
    payments.chargeSaved = async (...args) => {
      await service.cancel(7, 'sandbox', 'ip_1'); // the merchant cancels while payments is at it
      return charge(...args);
    };
    await scheduler().drain();
    const plan = (await plans.findById('ip_1'))!;
    expect(plan).toMatchObject({ status: 'cancelled', charging: null });
    expect(plan.parts.map((p) => p.status)).toEqual(['paid', 'paid', 'cancelled']);
    tick(365 * DAY);
    await scheduler().drain();
    expect(payments.calls).toHaveLength(1);
  });

  it('a completed plan cannot be cancelled', async () => {
    const { checkouts, service, scheduler, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout({ count: 2 }));
    tick(TO_PART_2);
    await scheduler().drain();
    await expect(service.cancel(7, 'sandbox', 'ip_1')).rejects.toMatchObject({ code: 'CONFLICT', detail: 'completed' });
  });
});

describe('the sandbox clock of a plan', () => {
  it('runs every due part, retry and event up to `to` before answering; sandbox keys only', async () => {
    const { checkouts, clock, plans, payments } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    const afterPart2 = await clock().advance(7, 'sandbox', 'ip_1', '2026-03-01T00:00:00Z');
    expect(afterPart2.parts.map((p) => p.status)).toEqual(['paid', 'paid', 'scheduled']);
    const done = await clock().advance(7, 'sandbox', 'ip_1', '2026-04-01T00:00:00Z');
    expect(done.status).toBe('completed');
    // Each part paid at its own due instant on the plan's clock.
    expect(done.parts.map((p) => p.paid_at!.toISOString())).toEqual([
      '2026-01-31T10:00:00.000Z',
      '2026-02-28T10:00:00.000Z',
      '2026-03-31T10:00:00.000Z',
    ]);
    expect(planSubjects(plans)).toEqual(['created', 'completed']);
    expect(payments.calls).toHaveLength(2);
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: { code: string; param?: string }) => `${e.code}:${e.param ?? ''}`,
      );
    expect(await code(clock().advance(7, 'sandbox', 'ip_1', '2026-03-01T00:00:00Z'))).toBe('VALIDATION_FAILED:to');
    expect(await code(clock().advance(7, 'live', 'ip_1', '2027-01-01T00:00:00Z'))).toBe('PERMISSION_DENIED:');
    expect(await code(clock().advance(8, 'sandbox', 'ip_1', '2027-01-01T00:00:00Z'))).toBe(
      'INSTALLMENT_PLAN_NOT_FOUND:plan_id',
    );
  });

  it('a card that declines every later part: retries on the plan clock +1, +3, +5 days, then defaulted', async () => {
    const { checkouts, clock, payments } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    payments.decline = 'card_declined';
    const plan = await clock().advance(7, 'sandbox', 'ip_1', '2026-04-30T00:00:00Z');
    expect(plan).toMatchObject({ status: 'defaulted', defaulted_at: new Date('2026-03-05T10:00:00Z') });
    expect(plan.parts[1]).toMatchObject({ status: 'failed', failed_attempts: 4, decline_reason: 'card_declined' });
    expect(payments.calls).toHaveLength(4);
  });
});
