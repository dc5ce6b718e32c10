import { DEFAULT_FEE_SCHEDULE, transactionFee } from '../charges/fees';
import { checkoutSetup as setup, DECLINED, INSTALLMENTS, RENEWS_THEN_DECLINES, VISA } from './checkout.test-util';
import { sessionResource } from './session';

const NGN = (amount: number) => ({ amount, currency: 'NGN' });
const fee = (amount: number) => transactionFee(DEFAULT_FEE_SCHEDULE, 'naira', NGN(amount));

describe('installment sessions (issue 26)', () => {
  it('split the amount exactly, remainder first; the page charges part 1, its fee per 4.1', async () => {
    const { service, sessions, merchants } = setup();
    merchants.add({ merchant_id: 1000, business_name: 'Ada & Sons', customer_pays_fees: true });
    const { session } = await service.create(1000, 'sandbox', INSTALLMENTS);
    expect(session).toMatchObject({
      payment_type: 'installment',
      amount: NGN(100_001 + fee(100_001).amount),
      fee_details: { base: NGN(100_001), fee: fee(100_001), customer_pays_fees: true },
      installments: { plan_id: expect.stringMatching(/^ip_/), count: 3, interval: 'monthly', total: NGN(300_001) },
    });
    expect(session.installments!.parts).toEqual([
      { number: 1, base: NGN(100_001), fee: fee(100_001), total: NGN(100_001 + fee(100_001).amount) },
      { number: 2, base: NGN(100_000), fee: fee(100_000), total: NGN(100_000 + fee(100_000).amount) },
      { number: 3, base: NGN(100_000), fee: fee(100_000), total: NGN(100_000 + fee(100_000).amount) },
    ]);
    // Nothing is announced before the customer pays: the plan starts with the first payment.
    expect(sessions.events).toEqual([]);
  });

  it('shows the schedule dated from now before payment, and from the payment after it', async () => {
    const { service, advance } = setup(); // the clock starts at 2026-11-01T10:00:00Z
    const { session } = await service.create(1000, 'sandbox', {
      ...INSTALLMENTS,
      installments: { count: 3, interval: 'weekly' },
    });
    const before = sessionResource(session, new Date('2026-11-30T10:00:00Z')).installments!;
    expect(before.schedule.map((p) => p.due_at.toISOString())).toEqual([
      '2026-11-30T10:00:00.000Z',
      '2026-12-07T10:00:00.000Z',
      '2026-12-14T10:00:00.000Z',
    ]);
    const page = await service.page(session.session_id);
    expect(page.installments!.schedule.map((p) => [p.total.amount, p.due_at.toISOString()])).toEqual([
      [100_001, '2026-11-01T10:00:00.000Z'],
      [100_000, '2026-11-08T10:00:00.000Z'],
      [100_000, '2026-11-15T10:00:00.000Z'],
    ]);
    advance(60_000);
    const paid = (await service.pay(session.session_id, VISA)).session;
    // (The in-memory store's Dates come from structuredClone, another realm under jest.)
    const completedAt = new Date(paid.completed_at!.getTime());
    const after = sessionResource(
      { ...paid, completed_at: completedAt },
      new Date('2027-05-01T00:00:00Z'),
    ).installments!;
    expect(after.schedule.map((p) => p.due_at.toISOString())).toEqual([
      '2026-11-01T10:01:00.000Z',
      '2026-11-08T10:01:00.000Z',
      '2026-11-15T10:01:00.000Z',
    ]);
  });

  it('paying part 1 saves the card and announces the plan: payment.succeeded names the part', async () => {
    const { service, sessions, methods } = setup();
    const { session } = await service.create(1000, 'sandbox', INSTALLMENTS);
    const planId = session.installments!.plan_id;
    expect((await service.pay(session.session_id, RENEWS_THEN_DECLINES)).result).toBe('succeeded');
    expect(sessions.events.map((e) => e.subject)).toEqual([
      'payments.payment.succeeded',
      'payments.installment_checkout.completed',
    ]);
    expect(sessions.events[0]!.data).toMatchObject({
      payment_type: 'installment',
      amount: NGN(100_001),
      installment: { plan_id: planId, number: 1, count: 3, amount_remaining: NGN(200_000) },
    });
    const [method] = [...methods.docs.values()];
    expect(method).toMatchObject({ origin_session_id: session.session_id, card: { last4: '0341' } });
    expect(sessions.events[1]!.data).toMatchObject({
      plan_id: planId,
      session_id: session.session_id,
      total: NGN(300_001),
      count: 3,
      interval: 'monthly',
      product: { id: null, title: 'Laptop', type: 'custom' },
      payment_method_id: method!.payment_method_id,
      charge_id: expect.stringMatching(/^ch_/),
    });
  });

  it('a declined first part: payment.failed names the part, the whole total still owed, no plan', async () => {
    const { service, sessions } = setup();
    const { session } = await service.create(1000, 'sandbox', INSTALLMENTS);
    expect((await service.pay(session.session_id, DECLINED)).result).toBe('declined');
    expect(sessions.events.map((e) => e.subject)).toEqual(['payments.payment.failed']);
    expect(sessions.events[0]!.data).toMatchObject({
      installment: { number: 1, count: 3, amount_remaining: NGN(300_001) },
    });
  });

  it('a catalogue product is split only if it allows installments', async () => {
    const { service, products } = setup();
    const digital = { ...INSTALLMENTS, product_name: undefined, product_id: 7 };
    await expect(service.create(1000, 'sandbox', digital)).rejects.toMatchObject({
      code: 'INSTALLMENTS_NOT_ALLOWED',
      param: 'installments',
    });
    products.products.get(7)!.installments_allowed = true;
    const { session } = await service.create(1000, 'sandbox', digital);
    expect(session).toMatchObject({
      payment_type: 'installment',
      product: { id: 7, name: 'Catalogue product', type: 'digital' },
      installments: { count: 3, total: { amount: 300_001, currency: 'NGN' } },
      goods: null,
      stock_state: null,
    });
  });

  it.each([
    [{ installments: { count: 1, interval: 'monthly' } }, 'installments.count'],
    [{ installments: { count: 13, interval: 'monthly' } }, 'installments.count'],
    [{ installments: { count: 3, interval: 'daily' } }, 'installments.interval'],
    [{ installments: { count: 3, interval: 'monthly' }, subscription_frequency_key: 'monthly' }, 'installments'],
    // ₦200 in 3 parts: ₦66.66 is below the ₦100 a charge must reach.
    [{ amount: 20_000, installments: { count: 3, interval: 'monthly' } }, 'installments.count'],
  ])('%j → 400 naming %s', async (over, param) => {
    const { service } = setup();
    await expect(service.create(1000, 'sandbox', { ...INSTALLMENTS, ...over })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param,
    });
  });
});
