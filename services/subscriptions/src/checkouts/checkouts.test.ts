import { renewalKey } from '../renewals/renewal';
import { checkout, DAY, setup, subjects, T0 } from '../service-kit.test-util';

describe('checkout → subscription', () => {
  it('created → pending; completed → active with the first period from the payment, once', async () => {
    const { checkouts, subscriptions } = setup();
    const pending = await checkouts.checkoutCreated('sandbox', checkout());
    expect(pending).toMatchObject({ status: 'pending', payment_status: 'none', checkout_session_id: 'cs_1' });
    const active = await checkouts.checkoutCompleted('sandbox', checkout());
    expect(active).toMatchObject({
      id: pending.id,
      status: 'active',
      payment_status: 'paid',
      payment_method_id: 'pm_1',
      current_period: { index: 0, start: new Date(T0), end: new Date('2026-02-28T10:00:00.000Z') },
      next_payment_date: new Date('2026-02-28T10:00:00.000Z'),
    });
    expect(await checkouts.checkoutCompleted('sandbox', checkout())).toMatchObject({ version: active.version });
    expect(subjects(subscriptions)).toEqual(['created']);
    const created = subscriptions.events[0]!.data as Record<string, unknown>;
    expect(created).toMatchObject({
      plan: { frequency: 'monthly', amount: { amount: 500_000, currency: 'NGN' }, product_id: 3 },
      current_period: { index: 0, start: T0, end: '2026-02-28T10:00:00.000Z' },
      trial: null,
    });
  });

  it('completed handled before created still makes one subscription', async () => {
    const { checkouts, subscriptions } = setup();
    await checkouts.checkoutCompleted('sandbox', checkout());
    await checkouts.checkoutCreated('sandbox', checkout());
    expect(subscriptions.docs.size).toBe(1);
    expect([...subscriptions.docs.values()][0]!.rec.status).toBe('active');
  });

  it('a trial checkout charges nothing and bills first at trial end', async () => {
    const { checkouts, scheduler, payments, subscriptions, tick } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout({ trial_days: 14, charge_id: null }));
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
