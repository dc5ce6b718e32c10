import { checkoutSetup as setup, SUBSCRIPTION, VISA } from './checkout.test-util';

describe('subscription checkout sessions', () => {
  it('the full frequency list is accepted; anything else is a 400 naming subscription_frequency_key', async () => {
    const { service } = setup();
    for (const key of ['weekly', 'monthly', 'quarterly', 'biannually', 'yearly']) {
      const { session } = await service.create(1000, 'sandbox', { ...SUBSCRIPTION, subscription_frequency_key: key });
      expect(session).toMatchObject({ payment_type: 'subscription', subscription_frequency_key: key });
    }
    await expect(
      service.create(1000, 'sandbox', { ...SUBSCRIPTION, subscription_frequency_key: 'daily' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', param: 'subscription_frequency_key' });
    await expect(
      service.create(1000, 'sandbox', { ...SUBSCRIPTION, subscription_frequency_key: undefined, trial_days: 7 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', param: 'trial_days' });
  });

  it('creation tells subscriptions; payment saves the card (no number) and completes the checkout', async () => {
    const { service, sessions, methods } = setup();
    const { session } = await service.create(1000, 'sandbox', SUBSCRIPTION);
    expect(sessions.events.map((e) => e.subject)).toEqual(['payments.subscription_checkout.created']);
    expect(sessions.events[0]!.data).toMatchObject({
      session_id: session.session_id,
      price: { amount: 500_000, currency: 'NGN' },
      frequency: 'monthly',
      trial_days: null,
    });
    await service.pay(session.session_id, VISA);
    expect(sessions.events.map((e) => e.subject).slice(1)).toEqual([
      'payments.payment.succeeded',
      'payments.subscription_checkout.completed',
    ]);
    expect(sessions.events[1]!.data).toMatchObject({ payment_type: 'subscription' });
    const [method] = [...methods.docs.values()];
    expect(method).toMatchObject({ origin_session_id: session.session_id, card: { last4: '4242' } });
    expect(JSON.stringify(method)).not.toContain('4242424242424242');
    expect(sessions.events[2]!.data).toMatchObject({
      payment_method_id: method!.payment_method_id,
      charge_id: expect.stringMatching(/^ch_/),
    });
  });

  it('a trial session saves the card without a charge: no payment event, no stored payment', async () => {
    const { service, sessions, methods } = setup();
    const { session } = await service.create(1000, 'sandbox', { ...SUBSCRIPTION, trial_days: 14 });
    const paid = await service.pay(session.session_id, VISA);
    expect(paid.session).toMatchObject({ status: 'completed', payment: null });
    expect(sessions.events.map((e) => e.subject)).toEqual([
      'payments.subscription_checkout.created',
      'payments.subscription_checkout.completed',
    ]);
    expect(sessions.events[1]!.data).toMatchObject({ trial_days: 14, charge_id: null });
    expect(methods.docs.size).toBe(1);
  });
});
