import { PlatformError } from '@ppay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '../charges/fees';
import {
  FakeCheckoutProcessor,
  FakeMerchants,
  FakeProcessors,
  FakeProducts,
  MemoryCharges,
  MemoryPaymentMethods,
  MemorySessions,
} from '../memory-ports.test-util';
import { PaymentMethodService } from '../payment-methods/payment-methods';
import { SessionService, type SessionRequest } from './sessions';

const REQUEST: SessionRequest = {
  amount: 500_000,
  currency: 'NGN',
  product_name: 'Sourdough',
  customer: { email: 'ada@example.com' },
  success_url: 'https://shop.example/done?order=42',
};
const VISA = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' };
const DECLINED = { number: '4000 0000 0000 0002', expiry: '12/34', cvc: '123' };
const BROKEN = { number: '4000 0000 0000 0119', expiry: '12/34', cvc: '123' };

function setup(options: { maxAttempts?: number } = {}) {
  const merchants = new FakeMerchants();
  merchants.add({ merchant_id: 1000, business_name: 'Ada & Sons' });
  const sessions = new MemorySessions();
  const processor = new FakeCheckoutProcessor();
  let clock = Date.parse('2026-11-01T10:00:00Z');
  const methods = new MemoryPaymentMethods();
  const paymentMethods = new PaymentMethodService(
    { methods, charges: new MemoryCharges(), merchants, processor, processors: new FakeProcessors() },
    { feeSchedule: DEFAULT_FEE_SCHEDULE },
  );
  const service = new SessionService(
    { merchants, processors: new FakeProcessors(), products: new FakeProducts(), sessions, processor, paymentMethods },
    {
      feeSchedule: DEFAULT_FEE_SCHEDULE,
      ttlMs: 30 * 60_000,
      maxAttempts: options.maxAttempts ?? 3,
      attemptStaleMs: 30_000,
    },
    () => new Date(clock),
  );
  return { service, sessions, processor, methods, advance: (ms: number) => (clock += ms) };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return (err as PlatformError).code;
  }
  return undefined;
};

describe('SessionService.pay (spec 3.1, hosted checkout) with in-memory dependencies', () => {
  it('a successful card completes the session, stores the payment and writes one payment.succeeded', async () => {
    const { service, sessions, processor } = setup();
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    const paid = await service.pay(session.session_id, VISA);
    expect(paid.result).toBe('succeeded');
    expect(paid.session).toMatchObject({
      status: 'completed',
      in_flight: null,
      payment: { status: 'succeeded', processor_reference: 'sbx_ok', card: { last4: '4242' } },
    });
    expect(processor.payments).toEqual([
      expect.objectContaining({ group: 'naira', amount: { amount: 500_000, currency: 'NGN' } }),
    ]);
    expect(sessions.events).toHaveLength(1);
    expect(sessions.events[0]).toMatchObject({
      subject: 'payments.payment.succeeded',
      merchant_id: 1000,
      mode: 'sandbox',
      data: { session_id: session.session_id, product: { id: null, title: 'Sourdough', type: 'custom' } },
    });
    // Paying again (a double click) answers success without a second charge.
    expect((await service.pay(session.session_id, VISA)).result).toBe('succeeded');
    expect([processor.payments.length, sessions.events.length]).toEqual([1, 1]);
  });

  it('a decline keeps the session open until the attempt limit fails it; each decline is a payment.failed', async () => {
    const { service, sessions } = setup({ maxAttempts: 2 });
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    const first = await service.pay(session.session_id, DECLINED);
    expect(first).toMatchObject({ result: 'declined', decline_code: 'card_declined', session: { status: 'pending' } });
    expect(service.attemptsLeft(first.session)).toBe(1);
    const second = await service.pay(session.session_id, DECLINED);
    expect(second.session.status).toBe('failed');
    expect(await codeOf(service.pay(session.session_id, VISA))).toBe('SESSION_CLOSED');
    expect(sessions.events.map((e) => e.subject)).toEqual(['payments.payment.failed', 'payments.payment.failed']);
  });

  it('a processor outage releases the attempt (nothing recorded) so the customer can retry', async () => {
    const { service, sessions } = setup();
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    expect(await codeOf(service.pay(session.session_id, BROKEN))).toBe('SERVICE_UNAVAILABLE');
    expect(sessions.docs.get(session.session_id)).toMatchObject({ in_flight: null, attempt_count: 0 });
    expect((await service.pay(session.session_id, VISA)).result).toBe('succeeded');
  });

  it('an expired session cannot be paid; an invalid card is a form error and claims nothing', async () => {
    const { service, sessions, advance } = setup();
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    expect(await codeOf(service.pay(session.session_id, { ...VISA, number: '4242 4242 4242 4241' }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(sessions.docs.get(session.session_id)!.in_flight).toBeNull();
    advance(30 * 60_000);
    expect(await codeOf(service.pay(session.session_id, VISA))).toBe('SESSION_EXPIRED');
    expect((await service.checkout(session.session_id)).status).toBe('expired');
  });

  it('a second payment while one is in flight is a conflict, and a stale claim can be taken over', async () => {
    const { service, sessions, advance } = setup();
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    await sessions.claimAttempt(
      session.session_id,
      'att_crashed',
      new Date(Date.parse('2026-11-01T10:00:00Z')),
      new Date(0),
    );
    expect(await codeOf(service.pay(session.session_id, VISA))).toBe('CONFLICT');
    advance(31_000);
    expect((await service.pay(session.session_id, VISA)).result).toBe('succeeded');
  });

  it('the hosted page view carries the merchant name, the amounts and where the page may post', async () => {
    const { service } = setup();
    const { session } = await service.create(1000, 'sandbox', { ...REQUEST, cancel_url: 'https://other.example/x' });
    expect(await service.view(session)).toMatchObject({
      business_name: 'Ada & Sons',
      amount: 500_000,
      currency: 'NGN',
      base_amount: 500_000,
      transaction_fee: 17_500,
      attempts_left: 3,
      payments_enabled: true,
      redirect_origins: ['https://shop.example', 'https://other.example'],
    });
  });
});

describe('session validation is bounded before any pattern runs', () => {
  it('answers a pathological 1 MB e-mail address with a 4xx in well under 100 ms', async () => {
    const { service } = setup();
    const evil = 'a@' + '.'.repeat(1_000_000) + '@';
    const started = Date.now();
    expect(await codeOf(service.create(1000, 'sandbox', { ...REQUEST, customer: { email: evil } }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('refuses amounts outside the currency limits', async () => {
    const { service } = setup();
    expect(await codeOf(service.create(1000, 'sandbox', { ...REQUEST, amount: 99 }))).toBe('VALIDATION_FAILED');
  });
});
