import { SUBJECTS } from '@ppay/kernel';
import { checkout, codeOf, DAY, setup, subjects, T0 } from '../service-kit.test-util';

describe('sandbox helper', () => {
  it('charges the first period with the customer present and is active at once', async () => {
    const { service, payments } = setup();
    payments.decline = 'card_declined'; // renewals would decline; the first payment does not
    const sub = await service.createSandbox(7, 'sandbox', {
      amount: { amount: 1000, currency: 'usd' },
      customer: { email: 'b@example.com' },
      subscription_frequency_key: 'weekly',
      card_number: '4000000000000341',
    });
    expect(sub).toMatchObject({ status: 'active', payment_status: 'paid', amount: { amount: 1000, currency: 'USD' } });
    expect(payments.calls).toEqual([expect.objectContaining({ customer_present: true })]);
  });

  it('refuses live keys and bad input, naming the parameter', async () => {
    const { service } = setup();
    const body = {
      amount: { amount: 1000, currency: 'USD' },
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

describe('cancel, pause, resume', () => {
  it('cancel: active → cancelled now; a second cancel answers the same cancelled_at', async () => {
    const { service, checkouts, subscriptions, tick } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    tick(DAY);
    const cancelled = await service.cancel(7, 'sandbox', sub.id, false);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_at: new Date(Date.parse(T0) + DAY) });
    tick(DAY);
    expect(await service.cancel(7, 'sandbox', sub.id, false)).toMatchObject({ cancelled_at: cancelled.cancelled_at });
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled']);
  });

  it('at period end: no further charge, cancelled by the scheduler when the paid period ends', async () => {
    const { service, checkouts, clock, payments, subscriptions } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    const scheduled = await service.cancel(7, 'sandbox', sub.id, true);
    expect(scheduled).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: new Date('2026-02-28T10:00:00.000Z'),
      next_payment_date: null,
    });
    const ended = await clock().advance(7, 'sandbox', sub.id, '2026-03-05T00:00:00.000Z');
    expect(ended).toMatchObject({ status: 'cancelled', cancelled_at: new Date('2026-02-28T10:00:00.000Z') });
    expect(payments.calls).toHaveLength(0);
    expect(subjects(subscriptions)).toEqual(['created', 'cancelled']);
  });

  it('pending → cancelled; pause and resume keep the paid period', async () => {
    const { service, checkouts, subscriptions } = setup();
    const pending = await checkouts.checkoutCreated('sandbox', checkout({ session_id: 'cs_p' }));
    expect(await service.cancel(7, 'sandbox', pending.id, true)).toMatchObject({ status: 'cancelled' });
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
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
