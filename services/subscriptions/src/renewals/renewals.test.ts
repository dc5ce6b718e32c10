import { checkout, DAY, setup, subjects, T0 } from '../service-kit.test-util';
import { claimRenewal } from '../subscriptions/lifecycle';
import { MONTHLY_FROM_JAN_31_2026 } from './month-ends.test-util';
import { renewalKey } from './renewal';

describe('renewals', () => {
  it('a year of monthly renewals through the sandbox clock: 12 charges, month-end anchored, in order', async () => {
    const { checkouts, clock, payments, renewals, subscriptions } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    const after = await clock().advance(7, 'sandbox', sub.id, '2027-01-31T10:00:00.000Z');
    expect(payments.succeeded()).toBe(12);
    expect(renewals.docs.size).toBe(12);
    const starts = [...payments.charges.values()].map((c) => c.request.idempotency_key.split(':')[2]!.slice(0, 10));
    // Period 0 was paid at checkout: the renewals pay periods 1 to 12.
    expect(starts).toEqual(MONTHLY_FROM_JAN_31_2026.slice(1));
    expect(after).toMatchObject({
      status: 'active',
      current_period: { index: 12 },
      next_payment_date: new Date('2027-02-28T10:00:00.000Z'),
    });
    expect(subjects(subscriptions).filter((s) => s === 'renewed')).toHaveLength(12);
    // Advancing again to the same instant does nothing more.
    await clock().advance(7, 'sandbox', sub.id, '2027-01-31T10:00:00.000Z');
    expect(payments.succeeded()).toBe(12);
  });

  it('dunning: declines retry after 1, 3 and 5 days, then pause; resume charges again at once', async () => {
    const { service, checkouts, scheduler, clock, payments, subscriptions } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    payments.decline = 'insufficient_funds';
    const failedOnce = await clock().advance(7, 'sandbox', sub.id, '2026-02-28T10:00:00.000Z');
    expect(failedOnce).toMatchObject({
      status: 'due',
      payment_status: 'failed',
      decline_reason: 'insufficient_funds',
      attempts_left: 3,
      next_retry_at: new Date('2026-03-01T10:00:00.000Z'),
      next_payment_date: new Date('2026-03-01T10:00:00.000Z'),
      access_until: new Date('2026-02-28T10:00:00.000Z'),
    });
    const paused = await clock().advance(7, 'sandbox', sub.id, '2026-03-10T00:00:00.000Z');
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'retries_exhausted', attempts_left: 0 });
    expect(payments.calls.map((c) => c.idempotency_key.split(':').slice(2).join(':'))).toEqual([
      '2026-02-28T10:00:00.000Z:1',
      '2026-02-28T10:00:00.000Z:2',
      '2026-02-28T10:00:00.000Z:3',
      '2026-02-28T10:00:00.000Z:4',
    ]);
    expect(subjects(subscriptions)).toEqual([
      'created',
      'payment_failed',
      'payment_failed',
      'payment_failed',
      'payment_failed',
      'paused',
    ]);
    payments.decline = null;
    const resumed = await service.resume(7, 'sandbox', sub.id);
    expect(resumed).toMatchObject({ status: 'due', next_retry_at: new Date('2026-03-10T00:00:00.000Z') });
    await scheduler().drain();
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
      status: 'active',
      payment_status: 'paid',
      current_period: { index: 0, start: new Date('2026-03-10T00:00:00.000Z') },
    });
    expect(subjects(subscriptions).slice(-2)).toEqual(['resumed', 'renewed']);
  });

  it('a hard decline pauses at once', async () => {
    const { checkouts, clock, payments } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    payments.decline = 'expired_card';
    const paused = await clock().advance(7, 'sandbox', sub.id, '2026-03-01T00:00:00.000Z');
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'hard_decline', attempts_left: 0 });
    expect(payments.calls).toHaveLength(1);
  });

  it('a live renewal declined authentication_required (Stripe, off-session) is dunned as any soft decline', async () => {
    const { service, checkouts, scheduler, payments, subscriptions, tick } = setup();
    const sub = await checkouts.checkoutCompleted('live', checkout({ price: { amount: 2_500, currency: 'USD' } }));
    payments.decline = 'authentication_required';
    tick(28 * DAY);
    await scheduler().drain();
    expect(await service.get(7, 'live', sub.id)).toMatchObject({
      status: 'due',
      payment_status: 'failed',
      decline_reason: 'authentication_required',
      attempts_left: 3,
      next_retry_at: new Date('2026-03-01T10:00:00.000Z'),
    });
    expect(subjects(subscriptions)).toEqual(['created', 'payment_failed']);
    // The retry is a new attempt, a new key: a new charge (payments makes a new PaymentIntent for it).
    payments.decline = null;
    tick(DAY);
    await scheduler().drain();
    expect(payments.calls.map((c) => c.idempotency_key.split(':').pop())).toEqual(['1', '2']);
    expect(await service.get(7, 'live', sub.id)).toMatchObject({ status: 'active', payment_status: 'paid' });
  });

  it('payments unreachable: the charge stays in flight and is repeated with the same key later', async () => {
    const { service, checkouts, scheduler, payments, tick } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    tick(28 * DAY);
    payments.failNext = 1;
    await scheduler().drain();
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({ status: 'due', payment_status: 'pending' });
    await scheduler().drain(); // still inside the retry delay: nothing happens
    expect(payments.calls).toHaveLength(1);
    tick(6_000);
    await scheduler().drain();
    expect(payments.calls.map((c) => c.idempotency_key)).toEqual([
      renewalKey(sub.id, new Date('2026-02-28T10:00:00.000Z'), 1),
      renewalKey(sub.id, new Date('2026-02-28T10:00:00.000Z'), 1),
    ]);
    expect(payments.succeeded()).toBe(1);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({ status: 'active', current_period: { index: 1 } });
  });

  it('a scheduler that dies after payments answered: the next one repeats the key and records the same charge', async () => {
    const { service, checkouts, scheduler, payments, subscriptions, tick } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    tick(28 * DAY);
    // The first scheduler charges, then "dies" before recording: its writes are lost with its lease.
    const dying = scheduler('dying');
    const claimed = await subscriptions.claim(sub.id, new Date(Date.parse(T0) + 28 * DAY), 'dying', 30_000);
    const realSave = subscriptions.save.bind(subscriptions);
    let writes = 0;
    subscriptions.save = async (next, events, lease) => (++writes > 1 ? null : realSave(next, events, lease));
    await dying.process(claimed!);
    subscriptions.save = realSave;
    expect(payments.succeeded()).toBe(1);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({ status: 'due', payment_status: 'pending' });
    tick(31_000); // the dead scheduler's lease expires (its release was lost too)
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(2);
    expect(payments.succeeded()).toBe(1);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({ status: 'active', current_period: { index: 1 } });
    expect(subjects(subscriptions).filter((s) => s === 'renewed')).toHaveLength(1);
  });

  it('a cancel between the claim and the repeat of a charge left in flight: the repeat is not made', async () => {
    const { service, checkouts, scheduler, payments, subscriptions, realNow, tick } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    tick(28 * DAY);
    // A scheduler marks the renewal in flight and stops before asking payments.
    const claimed = (await subscriptions.claim(sub.id, realNow(), 'dead', 30_000))!;
    const until = new Date(realNow().getTime() + 30_000);
    await subscriptions.save(claimRenewal(claimed, realNow()), [], { owner: 'dead', until });
    tick(30_000);
    // The next claim reads it due with the charge in flight; the merchant cancels right after it.
    const claim = subscriptions.claim.bind(subscriptions);
    subscriptions.claim = async (...args) => {
      const got = await claim(...args);
      if (got) await service.cancel(7, 'sandbox', sub.id, false);
      return got;
    };
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
    // The charge the claim found in flight is looked up instead (cancel-in-flight.test.ts): none was made.
    expect(payments.lookups).toEqual([renewalKey(sub.id, new Date('2026-02-28T10:00:00.000Z'), 1)]);
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
      status: 'cancelled',
      payment_status: 'paid',
      pending_period: null,
      next_payment_date: null,
    });
    tick(365 * DAY);
    await scheduler('b').drain();
    expect(payments.calls).toHaveLength(0);
  });

  it('two schedulers draining at once never charge a period twice', async () => {
    const { service, checkouts, scheduler, payments, tick } = setup({ concurrency: 4 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push((await checkouts.checkoutCompleted('sandbox', checkout({ session_id: `cs_${i}` }))).id);
    tick(28 * DAY);
    await Promise.all([scheduler('a').drain(), scheduler('b').drain()]);
    expect(payments.succeeded()).toBe(30);
    expect(new Set([...payments.charges.keys()]).size).toBe(30);
    for (const id of ids) expect(await service.get(7, 'sandbox', id)).toMatchObject({ current_period: { index: 1 } });
  });

  it('a charge in flight when the merchant cancels is recorded on the cancelled subscription', async () => {
    const { service, checkouts, scheduler, payments, subscriptions, tick } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    tick(28 * DAY);
    const charge = payments.chargeSaved.bind(payments);
    payments.chargeSaved = async (m, mode, c) => {
      await service.cancel(7, 'sandbox', sub.id, false);
      return charge(m, mode, c);
    };
    await scheduler().drain();
    expect(await service.get(7, 'sandbox', sub.id)).toMatchObject({
      status: 'cancelled',
      payment_status: 'paid',
      access_until: new Date('2026-03-31T10:00:00.000Z'),
      pending_period: null,
      next_payment_date: null,
    });
    // Announced as a renewal: the partner learns the customer paid for access to the period's end.
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled', 'renewed']);
    await scheduler().drain();
    expect(payments.lookups).toHaveLength(0);
  });
});
