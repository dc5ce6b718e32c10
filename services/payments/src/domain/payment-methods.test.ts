import { PlatformError } from '@ppay/kernel';
import { DEFAULT_FEE_SCHEDULE } from './fees';
import {
  FakeCheckoutProcessor,
  FakeMerchants,
  FakeProcessors,
  FakeProducts,
  MemoryCharges,
  MemoryPaymentMethods,
  MemorySessions,
} from './memory-ports.test-util';
import { PaymentMethodService, type OffSessionCharge } from './payment-methods';
import { SessionService, type SessionRequest } from './sessions';

const SUBSCRIPTION: SessionRequest = {
  amount: 500_000,
  currency: 'NGN',
  product_name: 'Bread club',
  customer: { email: 'ada@example.com' },
  subscription_frequency_key: 'monthly',
};
const VISA = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' };
const RENEWS_THEN_DECLINES = { number: '4000 0000 0000 0341', expiry: '12/34', cvc: '123' };

function setup() {
  const merchants = new FakeMerchants();
  merchants.add({ merchant_id: 1000, business_name: 'Ada & Sons' });
  const sessions = new MemorySessions();
  const charges = new MemoryCharges();
  const methods = new MemoryPaymentMethods();
  const processor = new FakeCheckoutProcessor();
  const clock = Date.parse('2026-11-01T10:00:00Z');
  const paymentMethods = new PaymentMethodService(
    { methods, charges, merchants, processor, processors: new FakeProcessors() },
    { feeSchedule: DEFAULT_FEE_SCHEDULE },
    () => new Date(clock),
  );
  const service = new SessionService(
    { merchants, processors: new FakeProcessors(), products: new FakeProducts(), sessions, processor, paymentMethods },
    { feeSchedule: DEFAULT_FEE_SCHEDULE, ttlMs: 30 * 60_000, maxAttempts: 3, attemptStaleMs: 30_000 },
    () => new Date(clock),
  );
  return { service, sessions, charges, methods, processor, paymentMethods };
}

const renewal = (methodId: string, key = 'sub:sub_1:2026-12-01T10:00:00.000Z:1'): OffSessionCharge => ({
  payment_method_id: methodId,
  price: { amount: 500_000, currency: 'NGN' },
  idempotency_key: key,
  product: { id: null, title: 'Bread club', type: 'custom' },
  frequency: 'monthly',
  metadata: { subscription_id: 'sub_1' },
  customer: { email: 'ada@example.com' },
});

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

describe('PaymentMethodService.chargeOffSession', () => {
  it('charges once per idempotency key and answers the same charge on a repeat', async () => {
    const { service, paymentMethods, charges, processor } = setup();
    const { session } = await service.create(1000, 'sandbox', SUBSCRIPTION);
    await service.pay(session.session_id, VISA);
    const methodId = (await paymentMethods.saveFromCheckout({
      session_id: session.session_id,
      merchant_id: 1000,
      mode: 'sandbox',
      customer_email: 'x@example.com',
      card: processor.saveTestCard('4242424242424242'),
    }))!.payment_method_id;
    const first = await paymentMethods.chargeOffSession(1000, 'sandbox', renewal(methodId));
    expect(first).toMatchObject({ replayed: false, charge: { status: 'succeeded' } });
    const again = await paymentMethods.chargeOffSession(1000, 'sandbox', renewal(methodId));
    expect(again).toMatchObject({ replayed: true, charge: { charge_id: first.charge.charge_id } });
    expect(processor.offSession).toHaveLength(1);
    expect(charges.events).toHaveLength(1);
    expect(charges.events[0]).toMatchObject({
      subject: 'payments.payment.succeeded',
      data: {
        payment_type: 'subscription',
        subscription_frequency_key: 'monthly',
        metadata: { subscription_id: 'sub_1' },
      },
    });
  });

  it('the 0341 card pays on the page and declines off-session (payment.failed with the decline code)', async () => {
    const { service, paymentMethods, charges, methods } = setup();
    const { session } = await service.create(1000, 'sandbox', SUBSCRIPTION);
    expect((await service.pay(session.session_id, RENEWS_THEN_DECLINES)).result).toBe('succeeded');
    const [method] = [...methods.docs.values()];
    const r = await paymentMethods.chargeOffSession(1000, 'sandbox', renewal(method!.payment_method_id));
    expect(r.charge).toMatchObject({ status: 'failed', failure_reason: 'card_declined' });
    expect(charges.events[0]).toMatchObject({ subject: 'payments.payment.failed' });
  });

  it("another merchant's method is not found; keys are bounded", async () => {
    const { paymentMethods, methods } = setup();
    await methods.insert({
      payment_method_id: 'pm_x',
      merchant_id: 2000,
      mode: 'sandbox',
      customer_email: 'a@example.com',
      card: { brand: 'visa', last4: '4242', off_session: { approved: true } },
      origin_session_id: null,
      created_at: new Date(),
    });
    const err = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: PlatformError) => e.code,
      );
    expect(await err(paymentMethods.chargeOffSession(1000, 'sandbox', renewal('pm_x')))).toBe(
      'PAYMENT_METHOD_NOT_FOUND',
    );
    expect(await err(paymentMethods.chargeOffSession(2000, 'sandbox', renewal('pm_x', 'k'.repeat(201))))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await err(paymentMethods.createSandbox(2000, 'live', '4242424242424242', 'a@example.com'))).toBe(
      'PERMISSION_DENIED',
    );
  });
});
