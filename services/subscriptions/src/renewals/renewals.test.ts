import { PlatformError, SUBJECTS, type SubscriptionCheckoutCompleted } from '@ppay/kernel';
import { FakePayments, MemoryRenewals, MemorySubscriptions } from './memory-ports.test-util';
import { parseInstant, RenewalScheduler, renewalKey, type SchedulerOptions } from './scheduler';
import { SubscriptionService } from './subscriptions';

const DAY = 86_400_000;
const T0 = '2026-01-31T10:00:00.000Z';

function setup(options: Partial<SchedulerOptions> = {}) {
  const subscriptions = new MemorySubscriptions();
  const renewals = new MemoryRenewals();
  const payments = new FakePayments();
  let real = Date.parse(T0);
  const realNow = () => new Date(real);
  const service = new SubscriptionService({ subscriptions, payments }, realNow);
  const scheduler = (owner = 'a') =>
    new RenewalScheduler(
      { subscriptions, renewals, payments },
      { owner, leaseMs: 30_000, concurrency: 2, retryAfterErrorMs: 5_000, batchSize: 50, ...options },
      realNow,
    );
  return { subscriptions, renewals, payments, service, scheduler, tick: (ms: number) => (real += ms), realNow };
}

const checkout = (overrides: Partial<SubscriptionCheckoutCompleted> = {}): SubscriptionCheckoutCompleted => ({
  session_id: 'cs_1',
  merchant_id: 7,
  product: { id: 3, title: 'Bread club', type: 'subscription' },
  price: { amount: 500_000, currency: 'NGN' },
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'L', country: 'NG' },
  frequency: 'monthly',
  trial_days: null,
  metadata: {},
  created_at: '2026-01-31T09:59:00.000Z',
  expires_at: '2026-01-31T10:29:00.000Z',
  payment_method_id: 'pm_1',
  card: { brand: 'visa', last4: '4242' },
  charge_id: 'ch_first',
  transaction_id: 'txn_first',
  completed_at: T0,
  ...overrides,
});

const subjects = (s: MemorySubscriptions) => s.events.map((e) => e.subject.replace('subscriptions.subscription.', ''));

describe('checkout → subscription', () => {
  it('created → pending; completed → active with the first period from the payment, once', async () => {
    const { service, subscriptions } = setup();
    const pending = await service.checkoutCreated('sandbox', checkout());
    expect(pending).toMatchObject({ status: 'pending', payment_status: 'none', checkout_session_id: 'cs_1' });
    const active = await service.checkoutCompleted('sandbox', checkout());
    expect(active).toMatchObject({
      id: pending.id,
      status: 'active',
      payment_status: 'paid',
      payment_method_id: 'pm_1',
      current_period: { index: 0, start: new Date(T0), end: new Date('2026-02-28T10:00:00.000Z') },
      next_payment_date: new Date('2026-02-28T10:00:00.000Z'),
    });
    expect(await service.checkoutCompleted('sandbox', checkout())).toMatchObject({ version: active.version });
    expect(subjects(subscriptions)).toEqual(['created']);
    const created = subscriptions.events[0]!.data as Record<string, unknown>;
    expect(created).toMatchObject({
      plan: { frequency: 'monthly', amount: { amount: 500_000, currency: 'NGN' }, product_id: 3 },
      current_period: { index: 0, start: T0, end: '2026-02-28T10:00:00.000Z' },
      trial: null,
    });
  });

  it('completed handled before created still makes one subscription', async () => {
    const { service, subscriptions } = setup();
    await service.checkoutCompleted('sandbox', checkout());
    await service.checkoutCreated('sandbox', checkout());
    expect(subscriptions.docs.size).toBe(1);
    expect([...subscriptions.docs.values()][0]!.rec.status).toBe('active');
  });

  it('a trial checkout charges nothing and bills first at trial end', async () => {
    const { service, scheduler, payments, tick, subscriptions } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout({ trial_days: 14, charge_id: null }));
    expect(sub).toMatchObject({
      status: 'active',
      payment_status: 'none',
      trial_end: new Date(Date.parse(T0) + 14 * DAY),
      next_payment_date: new Date(Date.parse(T0) + 14 * DAY),
    });
    expect((subscriptions.events[0]!.data as { trial: unknown }).trial).toEqual({
      trial_start: T0,
      trial_end: '2026-02-14T10:00:00.000Z',
    });
    await scheduler().drain();
    expect(payments.calls).toHaveLength(0);
    tick(14 * DAY);
    await scheduler().drain();
    expect(payments.calls.map((c) => c.idempotency_key)).toEqual([
      renewalKey(sub.id, new Date('2026-02-14T10:00:00.000Z'), 1),
    ]);
  });
});

describe('sandbox helper', () => {
  it('charges the first period with the customer present and is active at once', async () => {
    const { service, payments } = setup();
    payments.decline = 'card_declined'; // renewals would decline; the first payment does not
    const sub = await service.createSandbox(7, 'sandbox', {
      amount: 1000,
      currency: 'usd',
      customer: { email: 'b@example.com' },
      subscription_frequency_key: 'weekly',
      card_number: '4000000000000341',
    });
    expect(sub).toMatchObject({ status: 'active', payment_status: 'paid', amount: { amount: 1000, currency: 'USD' } });
    expect(payments.calls).toEqual([expect.objectContaining({ customer_present: true })]);
  });

  it('refuses live keys and bad input, naming the parameter', async () => {
    const { service } = setup();
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: PlatformError) => `${e.code}:${e.param ?? ''}`,
      );
    const body = {
      amount: 1000,
      currency: 'USD',
      customer: { email: 'b@example.com' },
      subscription_frequency_key: 'monthly',
      card_number: '4242424242424242',
    };
    expect(await codeOf(service.createSandbox(7, 'live', body))).toBe('PERMISSION_DENIED:');
    expect(await codeOf(service.createSandbox(7, 'sandbox', { ...body, subscription_frequency_key: 'daily' }))).toBe(
      'VALIDATION_FAILED:subscription_frequency_key',
    );
    expect(await codeOf(service.createSandbox(7, 'sandbox', { ...body, trial_days: 731 }))).toBe(
      'VALIDATION_FAILED:trial_days',
    );
  });
});

describe('renewals', () => {
  it('a year of monthly renewals through the sandbox clock: 12 charges, month-end anchored, in order', async () => {
    const { service, scheduler, payments, renewals, subscriptions } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
    const after = await scheduler().advance(7, 'sandbox', sub.id, '2027-01-31T10:00:00.000Z');
    expect(payments.succeeded()).toBe(12);
    expect(renewals.docs.size).toBe(12);
    const starts = [...payments.charges.values()].map((c) => c.request.idempotency_key.split(':')[2]!.slice(0, 10));
    expect(starts).toEqual([
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
      '2026-09-30',
      '2026-10-31',
      '2026-11-30',
      '2026-12-31',
      '2027-01-31',
    ]);
    expect(after).toMatchObject({
      status: 'active',
      current_period: { index: 12 },
      next_payment_date: new Date('2027-02-28T10:00:00.000Z'),
    });
    expect(subjects(subscriptions).filter((s) => s === 'renewed')).toHaveLength(12);
    // Advancing again to the same instant does nothing more.
    await scheduler().advance(7, 'sandbox', sub.id, '2027-01-31T10:00:00.000Z');
    expect(payments.succeeded()).toBe(12);
  });

  it('the clock only moves forward, for sandbox keys, on the merchant’s own subscriptions', async () => {
    const { service, scheduler } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
    const err = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: PlatformError) => `${e.code}:${e.param ?? ''}`,
      );
    expect(await err(scheduler().advance(7, 'sandbox', sub.id, '2026-01-01T00:00:00Z'))).toBe('VALIDATION_FAILED:to');
    expect(await err(scheduler().advance(7, 'sandbox', sub.id, 'tomorrow'))).toBe('VALIDATION_FAILED:to');
    expect(await err(scheduler().advance(7, 'sandbox', sub.id, '2040-01-01T00:00:00Z'))).toBe('VALIDATION_FAILED:to');
    expect(await err(scheduler().advance(7, 'live', sub.id, '2026-03-01T00:00:00Z'))).toBe('PERMISSION_DENIED:');
    expect(await err(scheduler().advance(8, 'sandbox', sub.id, '2026-03-01T00:00:00Z'))).toBe(
      'SUBSCRIPTION_NOT_FOUND:subscription_id',
    );
  });

  it('dunning: declines retry after 1, 3 and 5 days, then pause; resume charges again at once', async () => {
    const { service, scheduler, payments, subscriptions } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
    payments.decline = 'insufficient_funds';
    const failedOnce = await scheduler().advance(7, 'sandbox', sub.id, '2026-02-28T10:00:00.000Z');
    expect(failedOnce).toMatchObject({
      status: 'due',
      payment_status: 'failed',
      decline_reason: 'insufficient_funds',
      attempts_left: 3,
      next_retry_at: new Date('2026-03-01T10:00:00.000Z'),
      next_payment_date: new Date('2026-03-01T10:00:00.000Z'),
      access_until: new Date('2026-02-28T10:00:00.000Z'),
    });
    const paused = await scheduler().advance(7, 'sandbox', sub.id, '2026-03-10T00:00:00.000Z');
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
    const { service, scheduler, payments } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
    payments.decline = 'expired_card';
    const paused = await scheduler().advance(7, 'sandbox', sub.id, '2026-03-01T00:00:00.000Z');
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'hard_decline', attempts_left: 0 });
    expect(payments.calls).toHaveLength(1);
  });

  it('payments unreachable: the charge stays in flight and is repeated with the same key later', async () => {
    const { service, scheduler, payments, tick } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
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
    const { service, scheduler, payments, tick, subscriptions } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
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

  it('two schedulers draining at once never charge a period twice', async () => {
    const { service, scheduler, payments, tick } = setup({ concurrency: 4 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push((await service.checkoutCompleted('sandbox', checkout({ session_id: `cs_${i}` }))).id);
    tick(28 * DAY);
    await Promise.all([scheduler('a').drain(), scheduler('b').drain()]);
    expect(payments.succeeded()).toBe(30);
    expect(new Set([...payments.charges.keys()]).size).toBe(30);
    for (const id of ids) expect(await service.get(7, 'sandbox', id)).toMatchObject({ current_period: { index: 1 } });
  });

  it('a charge in flight when the merchant cancels is recorded on the cancelled subscription', async () => {
    const { service, scheduler, payments, tick } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
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
      next_payment_date: null,
    });
  });
});

describe('cancel, pause, resume', () => {
  it('cancel: active → cancelled now; a second cancel answers the same cancelled_at', async () => {
    const { service, subscriptions, tick } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
    tick(DAY);
    const cancelled = await service.cancel(7, 'sandbox', sub.id, false);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_at: new Date(Date.parse(T0) + DAY) });
    tick(DAY);
    expect(await service.cancel(7, 'sandbox', sub.id, false)).toMatchObject({ cancelled_at: cancelled.cancelled_at });
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled']);
  });

  it('at period end: no further charge, cancelled by the scheduler when the paid period ends', async () => {
    const { service, scheduler, payments, subscriptions } = setup();
    const sub = await service.checkoutCompleted('sandbox', checkout());
    const scheduled = await service.cancel(7, 'sandbox', sub.id, true);
    expect(scheduled).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: new Date('2026-02-28T10:00:00.000Z'),
      next_payment_date: null,
    });
    const ended = await scheduler().advance(7, 'sandbox', sub.id, '2026-03-05T00:00:00.000Z');
    expect(ended).toMatchObject({ status: 'cancelled', cancelled_at: new Date('2026-02-28T10:00:00.000Z') });
    expect(payments.calls).toHaveLength(0);
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled']);
  });

  it('pending → cancelled; pause and resume keep the paid period', async () => {
    const { service, subscriptions } = setup();
    const pending = await service.checkoutCreated('sandbox', checkout({ session_id: 'cs_p' }));
    expect(await service.cancel(7, 'sandbox', pending.id, true)).toMatchObject({ status: 'cancelled' });
    const sub = await service.checkoutCompleted('sandbox', checkout());
    expect(await service.pause(7, 'sandbox', sub.id)).toMatchObject({ status: 'paused', pause_reason: 'merchant' });
    expect(await service.resume(7, 'sandbox', sub.id)).toMatchObject({
      status: 'active',
      next_payment_date: new Date('2026-02-28T10:00:00.000Z'),
    });
    await expect(service.resume(7, 'sandbox', sub.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(subjects(subscriptions)).toEqual(['cancelled', 'created', 'paused', 'resumed']);
    expect(subscriptions.events.every((e) => e.mode === 'sandbox' && e.merchant_id === 7)).toBe(true);
    expect(subscriptions.events.map((e) => e.subject)).toContain(SUBJECTS.subscriptionResumed);
  });
});

describe('parseInstant (the sandbox clock target, as the gateway schema accepts it)', () => {
  it('reads every RFC 3339 form the schema lets through, and the zone', () => {
    expect(parseInstant('2027-01-31T10:00:00Z').toISOString()).toBe('2027-01-31T10:00:00.000Z');
    expect(parseInstant('2027-01-31t10:00:00z').toISOString()).toBe('2027-01-31T10:00:00.000Z');
    expect(parseInstant('2027-01-31 10:00:00.123456789Z').toISOString()).toBe('2027-01-31T10:00:00.123Z');
    expect(parseInstant('2027-01-31T10:00:00+01:00').toISOString()).toBe('2027-01-31T09:00:00.000Z');
    expect(parseInstant('2027-01-31T10:00:00-0230').toISOString()).toBe('2027-01-31T12:30:00.000Z');
    expect(parseInstant('2016-12-31T23:59:60Z').toISOString()).toBe('2017-01-01T00:00:00.000Z');
    expect(parseInstant('0001-01-01T00:00:00Z').getUTCFullYear()).toBe(1);
    expect(parseInstant('2028-02-29T00:00:00Z').toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('anything else is a 400 naming to', () => {
    for (const bad of [
      '0',
      '2027-02-29T00:00:00Z',
      '2027-13-01T00:00:00Z',
      '2027-01-01T24:00:00Z',
      '2027-01-01',
      'x'.repeat(41),
    ]) {
      expect(() => parseInstant(bad)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', param: 'to' }));
    }
  });
});
