import type { PlatformError } from '@ppay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '../charges/fees';
import { checkoutSetup as setup, RENEWS_THEN_DECLINES, SUBSCRIPTION, VISA } from '../checkout/checkout.test-util';
import { FakeMerchants, MemoryCharges, MemoryPaymentMethods } from '../memory-ports.test-util';
import { FakeCardProcessor, FakeProcessors } from '../processors/processors.test-util';
import { OffSessionChargeService, type OffSessionCharge } from './off-session-charges';

const renewal = (methodId: string, key = 'sub:sub_1:2026-12-01T10:00:00.000Z:1'): OffSessionCharge => ({
  payment_method_id: methodId,
  price: { amount: 500_000, currency: 'NGN' },
  idempotency_key: key,
  product: { id: null, title: 'Bread club', type: 'custom' },
  frequency: 'monthly',
  metadata: { subscription_id: 'sub_1' },
  customer: { email: 'ada@example.com' },
});

describe('OffSessionChargeService.charge', () => {
  it('charges once per idempotency key and answers the same charge on a repeat', async () => {
    const { service, paymentMethods, offSession, charges, cards } = setup();
    const { session } = await service.create(1000, 'sandbox', SUBSCRIPTION);
    await service.pay(session.session_id, VISA);
    const methodId = (await paymentMethods.saveFromCheckout({
      session_id: session.session_id,
      merchant_id: 1000,
      mode: 'sandbox',
      customer_email: 'x@example.com',
      card: cards.saveTestCard('4242424242424242'),
    }))!.payment_method_id;
    const first = await offSession.charge(1000, 'sandbox', renewal(methodId));
    expect(first).toMatchObject({ replayed: false, charge: { status: 'succeeded' } });
    const again = await offSession.charge(1000, 'sandbox', renewal(methodId));
    expect(again).toMatchObject({ replayed: true, charge: { charge_id: first.charge.charge_id } });
    expect(cards.offSession).toHaveLength(1);
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
    const { service, offSession, charges, methods } = setup();
    const { session } = await service.create(1000, 'sandbox', SUBSCRIPTION);
    expect((await service.pay(session.session_id, RENEWS_THEN_DECLINES)).result).toBe('succeeded');
    const [method] = [...methods.docs.values()];
    const r = await offSession.charge(1000, 'sandbox', renewal(method!.payment_method_id));
    expect(r.charge).toMatchObject({ status: 'failed', failure_reason: 'card_declined' });
    expect(charges.events[0]).toMatchObject({ subject: 'payments.payment.failed' });
  });

  it("another merchant's method is not found; keys are bounded", async () => {
    const { paymentMethods, offSession, methods } = setup();
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
    expect(await err(offSession.charge(1000, 'sandbox', renewal('pm_x')))).toBe('PAYMENT_METHOD_NOT_FOUND');
    expect(await err(offSession.charge(2000, 'sandbox', renewal('pm_x', 'k'.repeat(201))))).toBe('VALIDATION_FAILED');
    expect(await err(paymentMethods.createSandbox(2000, 'live', '4242424242424242', 'a@example.com'))).toBe(
      'PERMISSION_DENIED',
    );
  });

  describe('the rules of one-time charges (key + fingerprint, retry in place, unknown outcome)', () => {
    /** A service whose clock the test moves, over a processor whose answers the test releases. */
    function held() {
      const merchants = new FakeMerchants();
      merchants.add({ merchant_id: 1000, business_name: 'Ada & Sons' });
      const charges = new MemoryCharges();
      const methods = new MemoryPaymentMethods();
      const processor = new FakeCardProcessor();
      let now = Date.parse('2026-11-01T10:00:00Z');
      const gates: Array<() => void> = [];
      const charge = processor.chargeSaved.bind(processor);
      processor.chargeSaved = async (...args) => {
        await new Promise<void>((release) => gates.push(release));
        return charge(...args);
      };
      const service = new OffSessionChargeService(
        { methods, charges, merchants, cards: processor, processors: new FakeProcessors() },
        { feeSchedule: DEFAULT_FEE_SCHEDULE, staleAfterMs: 30_000, inFlightWaitMs: 100 },
        () => new Date(now),
        async (ms) => {
          now += ms;
          await new Promise((r) => setImmediate(r));
        },
      );
      const card = processor.saveTestCard('4242424242424242');
      const method = {
        payment_method_id: 'pm_1',
        merchant_id: 1000,
        mode: 'sandbox' as const,
        customer_email: 'ada@example.com',
        card,
        origin_session_id: null,
        created_at: new Date(now),
      };
      return {
        service,
        charges,
        processor,
        methods,
        method,
        gates,
        tick: (ms: number) => (now += ms),
        at: () => new Date(now),
      };
    }
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: PlatformError) => e.code,
      );
    const settle = () => new Promise((r) => setImmediate(r));

    it('a used key with a different request is IDEMPOTENCY_KEY_REUSED, never a second charge', async () => {
      const { service, methods, method, gates, processor } = held();
      await methods.insert(method);
      const first = service.charge(1000, 'sandbox', renewal('pm_1'));
      await settle();
      gates.shift()!();
      await first;
      const other = { ...renewal('pm_1'), price: { amount: 600_000, currency: 'NGN' } };
      expect(await codeOf(service.charge(1000, 'sandbox', other))).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(processor.offSession).toHaveLength(1);
    });

    it('no processor answer within the deadline is UPSTREAM_TIMEOUT; the late answer completes the charge', async () => {
      const { service, methods, method, gates, charges, at } = held();
      await methods.insert(method);
      const deadline = new Date(at().getTime() + 300); // 100 ms left after the answer margin
      expect(await codeOf(service.charge(1000, 'sandbox', renewal('pm_1'), { deadline }))).toBe('UPSTREAM_TIMEOUT');
      const [pending] = [...charges.docs.values()];
      expect(pending).toMatchObject({ status: 'pending' });
      gates.shift()!(); // the processor answers late
      await settle();
      await settle();
      expect(charges.docs.get(pending!.charge_id)).toMatchObject({ status: 'succeeded' });
      expect(charges.events).toHaveLength(1);
      const repeat = await service.charge(1000, 'sandbox', renewal('pm_1'));
      expect(repeat).toMatchObject({ replayed: true, charge: { charge_id: pending!.charge_id, status: 'succeeded' } });
    });

    it('a fresh pending charge is IDEMPOTENCY_IN_FLIGHT; a stale one (a crash) is repeated in place, once', async () => {
      const { service, methods, method, gates, charges, processor, tick } = held();
      await methods.insert(method);
      // The first caller crashes while the processor holds its call: the charge stays pending.
      void service.charge(1000, 'sandbox', renewal('pm_1')).catch(() => undefined);
      await settle();
      expect(await codeOf(service.charge(1000, 'sandbox', renewal('pm_1')))).toBe('IDEMPOTENCY_IN_FLIGHT');
      tick(31_000);
      const repeat = service.charge(1000, 'sandbox', renewal('pm_1'));
      await settle();
      gates.pop()!(); // the repeat's processor call answers
      const result = await repeat;
      expect(result).toMatchObject({ replayed: false, charge: { status: 'succeeded', attempts: 2 } });
      expect(charges.docs.size).toBe(1);
      // The crashed call's answer arrives afterwards: same charge, no second event.
      gates.shift()!();
      await settle();
      expect(charges.events).toHaveLength(1);
      expect(processor.offSession).toHaveLength(2); // asked twice, for the same charge id (the processor dedupes)
      expect(new Set(processor.offSession.map((p) => p.charge_id)).size).toBe(1);
    });
  });

  it('an installment part: payment_type installment and the part in its events; a decline still owes it', async () => {
    const { service, offSession, charges, methods } = setup();
    const { session } = await service.create(1000, 'sandbox', SUBSCRIPTION);
    await service.pay(session.session_id, RENEWS_THEN_DECLINES);
    const [method] = [...methods.docs.values()];
    const part = (number: number): OffSessionCharge => ({
      ...renewal(method!.payment_method_id, `inst:ip_1:${number}:1`),
      price: { amount: 100_000, currency: 'NGN' },
      frequency: null,
      installment: { plan_id: 'ip_1', number, count: 3, remaining_if_paid: { amount: 100_000, currency: 'NGN' } },
    });
    const declined = await offSession.charge(1000, 'sandbox', part(2));
    expect(declined.charge.status).toBe('failed');
    expect(charges.events[0]!.data).toMatchObject({
      payment_type: 'installment',
      subscription_frequency_key: null,
      installment: { plan_id: 'ip_1', number: 2, count: 3, amount_remaining: { amount: 200_000, currency: 'NGN' } },
    });
    // A paying card: what is left once this part is paid.
    await methods.insert({
      ...method!,
      payment_method_id: 'pm_visa',
      card: { ...method!.card, off_session: { approved: true } },
    });
    const visa = await offSession.charge(1000, 'sandbox', { ...part(3), payment_method_id: 'pm_visa' });
    expect(visa.charge.status).toBe('succeeded');
    expect(charges.events[1]!.data).toMatchObject({
      payment_type: 'installment',
      installment: { number: 3, amount_remaining: { amount: 100_000, currency: 'NGN' } },
    });
  });
});
