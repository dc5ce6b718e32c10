import { checkout, DAY, setup, subjects } from '../service-kit.test-util';
import { claimRenewal } from '../subscriptions/lifecycle';
import { renewalKey, renewalRecordId } from './renewal';

const LEASE_MS = 30_000;
const FEB_28 = new Date('2026-02-28T10:00:00.000Z');
const MAR_31 = new Date('2026-03-31T10:00:00.000Z');

/**
 * A subscription whose first renewal a scheduler ('dead') claimed and then stopped on: before asking payments
 * ('not made'), or after payments made the charge and before it was recorded (its answer lost).
 */
async function leftInFlight(charge: 'not made' | 'succeeded' | 'declined') {
  const kit = setup();
  const { checkouts, subscriptions, payments, service, realNow, tick } = kit;
  const sub = await checkouts.checkoutCompleted('sandbox', checkout());
  tick(28 * DAY);
  if (charge === 'not made') {
    const claimed = (await subscriptions.claim(sub.id, realNow(), 'dead', LEASE_MS))!;
    const until = new Date(realNow().getTime() + LEASE_MS);
    await subscriptions.save(claimRenewal(claimed, realNow()), [], { owner: 'dead', until });
  } else {
    payments.decline = charge === 'declined' ? 'insufficient_funds' : null;
    const chargeSaved = payments.chargeSaved.bind(payments);
    payments.chargeSaved = async (...args) => {
      await chargeSaved(...args);
      throw new Error('the scheduler stopped before the answer was recorded');
    };
    await kit.scheduler('dead').drain();
    payments.chargeSaved = chargeSaved;
    payments.decline = null;
  }
  expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({ status: 'due', payment_status: 'pending' });
  return { ...kit, sub, key: renewalKey(sub.id, FEB_28, 1), record: renewalRecordId(sub.id, FEB_28) };
}

describe('a cancel while a renewal is left in flight: settled by looking the charge up, never by a new charge', () => {
  it.each([
    ['now', false],
    ['at period end', true],
  ])(
    'charge made (cancel %s): found by its key, the renewal is recorded paid once, the subscription stays cancelled',
    async (_name, atPeriodEnd) => {
      const { service, scheduler, payments, renewals, subscriptions, sub, key, record, tick } =
        await leftInFlight('succeeded');
      await service.cancel(7, 'sandbox', sub.id, atPeriodEnd);
      tick(LEASE_MS);
      await scheduler('b').drain();
      expect(payments.calls.map((c) => c.idempotency_key)).toEqual([key]); // the dead scheduler's only
      expect(payments.lookups).toEqual([key]);
      expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
        status: 'cancelled',
        payment_status: 'paid',
        current_period: { index: 1, start: FEB_28, end: MAR_31 },
        pending_period: null,
        access_until: MAR_31,
        next_payment_date: null,
      });
      expect([...renewals.docs.keys()]).toEqual([record]);
      expect(renewals.docs.get(record)).toMatchObject({
        status: 'paid',
        attempts: { '1': { idempotency_key: key, status: 'succeeded', charge_id: 'ch_1' } },
      });
      expect(subjects(subscriptions)).toEqual(['created', 'cancelled', 'renewed']);
      expect(subscriptions.events.at(-1)!.data).toMatchObject({
        status: 'cancelled',
        payment_status: 'paid',
        charge_id: 'ch_1',
        access_until: MAR_31.toISOString(),
      });
      tick(365 * DAY);
      await scheduler('b').drain();
      expect(payments.calls).toHaveLength(1);
      expect(payments.lookups).toHaveLength(1);
      expect(subjects(subscriptions)).toHaveLength(3);
    },
  );

  it('charge declined: the decline is recorded, no dunning follows, nothing is charged later', async () => {
    const { service, scheduler, payments, renewals, subscriptions, sub, key, record, tick } =
      await leftInFlight('declined');
    await service.cancel(7, 'sandbox', sub.id, false);
    tick(LEASE_MS);
    await scheduler('b').drain();
    expect(payments.lookups).toEqual([key]);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
      status: 'cancelled',
      payment_status: 'failed',
      decline_reason: 'insufficient_funds',
      pending_period: null,
      next_retry_at: null,
      next_payment_date: null,
    });
    expect(renewals.docs.get(record)).toMatchObject({ status: 'failed', attempts: { '1': { status: 'failed' } } });
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled']);
    tick(365 * DAY);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(1);
    expect(payments.lookups).toHaveLength(1);
  });

  it('charge still in flight at payments: that charge is finished by its key, no other is made', async () => {
    const { service, scheduler, payments, renewals, sub, key, record, tick } = await leftInFlight('succeeded');
    payments.pending.add(key);
    await service.cancel(7, 'sandbox', sub.id, false);
    tick(LEASE_MS);
    await scheduler('b').drain();
    expect(payments.lookups).toEqual([key]);
    expect(payments.calls.map((c) => c.idempotency_key)).toEqual([key, key]);
    expect(payments.charges.size).toBe(1);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
      status: 'cancelled',
      payment_status: 'paid',
      current_period: { index: 1 },
    });
    expect(renewals.docs.get(record)!.status).toBe('paid');
  });

  it('charge never made: no charge is asked for, it is no longer in flight, nothing is charged later', async () => {
    const { service, scheduler, payments, renewals, subscriptions, sub, key, tick } = await leftInFlight('not made');
    await service.cancel(7, 'sandbox', sub.id, false);
    tick(LEASE_MS);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toEqual([key]);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
      status: 'cancelled',
      payment_status: 'paid', // the checkout's payment, the last one made
      current_period: { index: 0 },
      pending_period: null,
    });
    expect(renewals.docs.size).toBe(0);
    tick(365 * DAY);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toHaveLength(1);
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled']);
  });

  it('payments cannot answer the look-up: nothing is written, it is looked up again later', async () => {
    const { service, scheduler, payments, sub, key, tick } = await leftInFlight('not made');
    await service.cancel(7, 'sandbox', sub.id, false);
    tick(LEASE_MS);
    payments.failNext = 1;
    await scheduler('b').drain();
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({ status: 'cancelled', payment_status: 'pending' });
    tick(5_000); // the scheduler's retry delay after an error
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    expect(payments.lookups).toEqual([key, key]);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({ payment_status: 'paid', pending_period: null });
  });

  it('a payment that lands after its charge was settled as never made is recorded, the subscription stays cancelled', async () => {
    const { checkouts, service, scheduler, payments, subscriptions, tick } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    tick(28 * DAY);
    const key = renewalKey(sub.id, FEB_28, 1);
    // 'a' claims the renewal and stalls past its lease before its request reaches payments: meanwhile the
    // merchant cancels and 'b' looks the charge up, finds none and settles it as never made.
    const chargeSaved = payments.chargeSaved.bind(payments);
    let settledMeanwhile: unknown;
    payments.chargeSaved = async (...args) => {
      payments.chargeSaved = chargeSaved; // once: 'a' stalls, nobody else
      await service.cancel(7, 'sandbox', sub.id, false);
      tick(LEASE_MS);
      await scheduler('b').drain();
      settledMeanwhile = (await subscriptions.findById(sub.id))!.pending_period;
      return chargeSaved(...args);
    };
    await scheduler('a').drain();
    expect(settledMeanwhile).toBeNull();
    expect(payments.lookups).toEqual([key]);
    expect(payments.calls.map((c) => c.idempotency_key)).toEqual([key]);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
      status: 'cancelled',
      payment_status: 'paid',
      current_period: { index: 1 },
      access_until: MAR_31,
    });
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled', 'renewed']);
  });
});
