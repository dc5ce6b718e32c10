import { installmentKey } from './installment-plan';
import { claimPart } from './lifecycle';
import { installmentCheckout } from './plan-fixtures.test-util';
import { keysAsked, planSetup, planSubjects } from './plan-kit.test-util';

const DAY = 86_400_000;
const TO_PART_2 = 28 * DAY;
const LEASE_MS = 30_000;
const PART_2 = installmentKey('ip_1', 2, 1);

/** A plan whose part 2 a scheduler ('dead') marked in flight and then stopped, before or after asking payments. */
async function leftInFlight(chargeMade: boolean) {
  const kit = planSetup();
  const { checkouts, plans, payments, realNow, tick } = kit;
  await checkouts.checkoutCompleted('sandbox', installmentCheckout());
  tick(TO_PART_2);
  const claimed = (await plans.claim('ip_1', realNow(), 'dead', LEASE_MS))!;
  const inFlight = claimPart(claimed, realNow());
  await plans.save(inFlight, [], { owner: 'dead', until: new Date(realNow().getTime() + LEASE_MS) });
  if (chargeMade) {
    const part = inFlight.parts[1]!;
    payments.charges.set(PART_2, {
      charge_id: 'ch_dead',
      status: 'succeeded',
      decline_code: null,
      request: {
        payment_method_id: inFlight.payment_method_id,
        price: part.amount,
        idempotency_key: PART_2,
        product: inFlight.product,
        frequency: null,
        metadata: {},
        customer: inFlight.customer,
        customer_present: false,
      },
    });
  }
  return kit;
}

describe('a cancel while a part is left in flight: settled by looking the charge up, never by a new charge', () => {
  it('charge never made: no charge is asked for, the part is cancelled, nothing is charged later', async () => {
    const { service, scheduler, payments, plans, tick } = await leftInFlight(false);
    await service.cancel(7, 'sandbox', 'ip_1');
    tick(LEASE_MS);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toEqual([PART_2]);
    const plan = (await plans.findById('ip_1'))!;
    expect(plan).toMatchObject({ status: 'cancelled', charging: null });
    expect(plan.parts.map((p) => [p.status, p.charge_id])).toEqual([
      ['paid', 'ch_first'],
      ['cancelled', null],
      ['cancelled', null],
    ]);
    tick(365 * DAY);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toHaveLength(1);
    expect(planSubjects(plans)).toEqual(['created', 'cancelled']);
  });

  it('charge made: found by its key, the part is recorded paid, the plan stays cancelled, no refund', async () => {
    const { service, scheduler, payments, plans, tick } = await leftInFlight(true);
    await service.cancel(7, 'sandbox', 'ip_1');
    tick(LEASE_MS);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toEqual([PART_2]);
    const plan = (await plans.findById('ip_1'))!;
    expect(plan).toMatchObject({ status: 'cancelled', charging: null });
    expect(plan.parts.map((p) => [p.status, p.charge_id])).toEqual([
      ['paid', 'ch_first'],
      ['paid', 'ch_dead'],
      ['cancelled', null],
    ]);
    tick(365 * DAY);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
  });

  it('charge still in flight at payments: that charge is finished by its key, no other is made', async () => {
    const { service, scheduler, payments, plans, tick } = await leftInFlight(true);
    payments.pending.add(PART_2);
    await service.cancel(7, 'sandbox', 'ip_1');
    tick(LEASE_MS);
    await scheduler('b').drain();
    expect(payments.lookups).toEqual([PART_2]);
    expect(keysAsked(payments)).toEqual([PART_2]);
    expect(payments.charges.size).toBe(1);
    expect((await plans.findById('ip_1'))!.parts[1]).toMatchObject({ status: 'paid', charge_id: 'ch_dead' });
  });

  it('payments cannot answer the look-up: nothing is written, it is looked up again later', async () => {
    const { service, scheduler, payments, plans, tick } = await leftInFlight(false);
    await service.cancel(7, 'sandbox', 'ip_1');
    tick(LEASE_MS);
    payments.failNext = 1;
    await scheduler('b').drain();
    expect((await plans.findById('ip_1'))!.charging).toEqual({ number: 2, attempt: 1 });
    tick(5_000); // the scheduler's retry delay after an error
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toEqual([PART_2, PART_2]);
    expect((await plans.findById('ip_1'))!.parts[1]!.status).toBe('cancelled');
  });

  it('a cancel between the claim and the repeat of the charge: the repeat is not made, the part is looked up', async () => {
    const { service, scheduler, payments, plans, tick } = await leftInFlight(false);
    tick(LEASE_MS);
    // The claim reads the plan active with part 2 in flight; the merchant cancels right after it.
    const claim = plans.claim.bind(plans);
    plans.claim = async (...args) => {
      const claimed = await claim(...args);
      if (claimed) await service.cancel(7, 'sandbox', 'ip_1');
      return claimed;
    };
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toEqual([PART_2]);
    expect((await plans.findById('ip_1'))!).toMatchObject({ status: 'cancelled', charging: null });
  });

  it('a payment that lands after its part was settled as never made is recorded, the plan stays cancelled', async () => {
    const { checkouts, service, scheduler, payments, plans, tick } = planSetup();
    await checkouts.checkoutCompleted('sandbox', installmentCheckout());
    tick(TO_PART_2);
    // 'a' marks part 2 in flight and stalls past its lease before its request reaches payments: meanwhile the
    // merchant cancels and 'b' looks the charge up, finds none and cancels the part.
    const charge = payments.chargeSaved.bind(payments);
    let settledMeanwhile: string | undefined;
    payments.chargeSaved = async (...args) => {
      payments.chargeSaved = charge; // once: 'a' stalls, nobody else
      await service.cancel(7, 'sandbox', 'ip_1');
      tick(LEASE_MS);
      await scheduler('b').drain();
      settledMeanwhile = (await plans.findById('ip_1'))!.parts[1]!.status;
      return charge(...args);
    };
    await scheduler('a').drain();
    expect(settledMeanwhile).toBe('cancelled');
    expect(payments.lookups).toEqual([PART_2]);
    expect(keysAsked(payments)).toEqual([PART_2]);
    const plan = (await plans.findById('ip_1'))!;
    expect(plan).toMatchObject({ status: 'cancelled', charging: null });
    expect(plan.parts.map((p) => [p.status, p.charge_id])).toEqual([
      ['paid', 'ch_first'],
      ['paid', 'ch_1'],
      ['cancelled', null],
    ]);
  });
});
