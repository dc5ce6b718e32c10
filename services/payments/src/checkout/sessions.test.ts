import type { PlatformError } from '@ppay/kernel';
import { checkoutSetup as setup, BROKEN, DECLINED, VISA } from './checkout.test-util';
import type { SessionRequest } from './session-request';

const REQUEST: SessionRequest = {
  amount: 500_000,
  currency: 'NGN',
  product_name: 'Sourdough',
  customer: { email: 'ada@example.com' },
  success_url: 'https://shop.example/done?order=42',
};

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
    const { service, sessions, cards } = setup();
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    const paid = await service.pay(session.session_id, VISA);
    expect(paid.result).toBe('succeeded');
    expect(paid.session).toMatchObject({
      status: 'completed',
      in_flight: null,
      payment: { status: 'succeeded', processor_reference: 'sbx_ok', card: { last4: '4242' } },
    });
    expect(cards.payments).toEqual([
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
    expect([cards.payments.length, sessions.events.length]).toEqual([1, 1]);
  });

  it('copies the paid charge into the charges (once, without the card), so it is refundable and disputable', async () => {
    const { service, charges } = setup();
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    const paid = await service.pay(session.session_id, VISA);
    const chargeId = paid.session.payment!.charge_id;
    const copy = await charges.findForMerchant(1000, 'sandbox', chargeId);
    expect(copy).toMatchObject({ status: 'succeeded', reference: session.session_id, amount_disputed: { amount: 0 } });
    expect(copy).not.toHaveProperty('card');
    // Lost to a crash: a repeat of the page's pay copies it again, once.
    charges.docs.clear();
    await service.pay(session.session_id, VISA);
    await service.pay(session.session_id, VISA);
    expect([...charges.docs.keys()]).toEqual([chargeId]);
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
      amount: { amount: 500_000, currency: 'NGN' },
      fee_details: {
        base: { amount: 500_000, currency: 'NGN' },
        fee: { amount: 17_500, currency: 'NGN' },
        customer_pays_fees: false,
      },
      customer_pays_fees: false,
      attempts_left: 3,
      payments_enabled: true,
      redirect_origins: ['https://shop.example', 'https://other.example'],
    });
  });
});

describe('the hosted page answers (GetCheckout, PayCheckout, CancelCheckout)', () => {
  it('a paid page sends the customer to success_url with the session id', async () => {
    const { service } = setup();
    const { session } = await service.create(1000, 'sandbox', REQUEST);
    expect(await service.page(session.session_id)).toMatchObject({ status: 'pending', attempts_left: 3 });
    expect(await service.payOnPage(session.session_id, VISA)).toMatchObject({
      result: 'succeeded',
      redirect_url: `https://shop.example/done?order=42&session_id=${session.session_id}`,
      checkout: { status: 'completed', business_name: 'Ada & Sons' },
    });
  });

  it('a declined card keeps the page, with the decline shown; leaving sends the customer to cancel_url', async () => {
    const { service } = setup();
    const { session } = await service.create(1000, 'sandbox', { ...REQUEST, cancel_url: 'https://shop.example/cart' });
    expect(await service.payOnPage(session.session_id, DECLINED)).toMatchObject({
      result: 'declined',
      decline_code: 'card_declined',
      message: 'Your card was declined.',
      checkout: { status: 'pending', attempts_left: 2, last_decline_message: 'Your card was declined.' },
    });
    expect(await service.cancel(session.session_id)).toMatchObject({
      redirect_url: `https://shop.example/cart?session_id=${session.session_id}`,
      checkout: { status: 'pending' },
    });
  });
});

describe('session validation is bounded before any pattern runs', () => {
  it('answers a pathological 1 MB e-mail address with a 4xx at once (a backtracking pattern would take years)', async () => {
    const { service } = setup();
    const evil = 'a@' + '.'.repeat(1_000_000) + '@';
    const started = Date.now();
    expect(await codeOf(service.create(1000, 'sandbox', { ...REQUEST, customer: { email: evil } }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('refuses amounts outside the currency limits', async () => {
    const { service } = setup();
    expect(await codeOf(service.create(1000, 'sandbox', { ...REQUEST, amount: 99 }))).toBe('VALIDATION_FAILED');
  });
});
