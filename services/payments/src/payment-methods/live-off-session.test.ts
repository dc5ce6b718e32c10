import type { PaymentOutcome, PlatformError } from '@ppay/kernel';
import { stripeClient } from '@ppay/stripe-support';
import { DEFAULT_FEE_SCHEDULE } from '../charges/fees';
import { FakeMerchants, MemoryCharges, MemoryPaymentMethods } from '../memory-ports.test-util';
import { RoutedCardProcessor } from '../processors/card-routing';
import { FakeCardProcessor } from '../processors/processors.test-util';
import { StaticProcessorRegistry } from '../processors/sandbox-processors.adapter';
import { StripeOffSessionCharger } from '../processors/stripe/stripe-off-session.adapter';
import { LIVE_CARD, offSessionStripe } from '../processors/stripe/stripe-off-session.test-util';
import { StripeCardGateway } from '../processors/stripe/stripe-payments.adapter';
import { scriptedStripe } from '../processors/stripe/stripe.test-util';
import { RefundService } from '../refunds/refunds';
import { OffSessionChargeService, offSessionChargeResource, type OffSessionCharge } from './off-session-charges';

/**
 * Live renewals and installment parts through OffSessionChargeService, the Stripe connector and the
 * real library, over a Stripe that keeps its PaymentIntents (stripe-off-session.test-util.ts):
 * docs/decisions.md S36–S38.
 */
const renewal: OffSessionCharge = {
  payment_method_id: 'pm_live_1',
  price: { amount: 2_500, currency: 'USD' },
  idempotency_key: 'sub:sub_live:2026-12-01T10:00:00.000Z:1',
  product: { id: null, title: 'Bread club', type: 'subscription' },
  frequency: 'monthly',
  metadata: { subscription_id: 'sub_live' },
  customer: { email: 'ada@example.com' },
};

const HOUR = 3_600_000;
const stripes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(stripes.splice(0).map((s) => s.close()));
});

async function live(options: { timeoutMs?: number } = {}) {
  let now = Date.parse('2026-12-01T10:00:00Z');
  const clock = () => new Date(now);
  const fake = offSessionStripe(clock);
  const stripe = await scriptedStripe(fake.script);
  stripes.push(stripe);
  const settings = stripe.settings({ timeoutMs: options.timeoutMs ?? 2_000 });
  const client = stripeClient(settings);
  const observer = { call: () => undefined, authFailure: () => undefined };
  const processors = new StaticProcessorRegistry({
    timeoutMs: 5_000,
    resetTimeoutMs: 1_000,
    cardPublishableKey: 'pk_test',
    live: { card: new StripeCardGateway(client, settings, observer) },
  });
  const merchants = new FakeMerchants();
  merchants.add({ merchant_id: 1000, country: 'US', baseline_currency: 'USD' });
  const charges = new MemoryCharges();
  const methods = new MemoryPaymentMethods();
  await methods.insert({
    payment_method_id: 'pm_live_1',
    merchant_id: 1000,
    mode: 'live',
    customer_email: 'ada@example.com',
    card: LIVE_CARD,
    origin_session_id: 'cs_live_1',
    created_at: clock(),
  });
  const cards = new RoutedCardProcessor(new FakeCardProcessor(), [new StripeOffSessionCharger(client, observer)]);
  const service = new OffSessionChargeService(
    { methods, charges, merchants, cards, processors },
    { feeSchedule: DEFAULT_FEE_SCHEDULE, staleAfterMs: 30_000, inFlightWaitMs: 50 },
    clock,
    async (ms) => {
      now += ms;
      await new Promise((r) => setImmediate(r));
    },
  );
  return {
    service,
    charges,
    processors,
    fake,
    stripe,
    charge: () => service.charge(1000, 'live', renewal),
    only: () => [...charges.docs.values()][0]!,
    tick: (ms: number) => (now += ms),
  };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: PlatformError) => e.code,
  );

describe('live off-session charges of a card saved at Stripe', () => {
  it('a renewal is one PaymentIntent, recorded on the charge; repeats answer it; its refund refunds that PaymentIntent', async () => {
    const t = await live();
    const first = await t.charge();
    expect(first).toMatchObject({
      replayed: false,
      charge: { status: 'succeeded', processor_reference: 'pi_fake_1', payment_gateway: 'card_gateway' },
    });
    expect(t.fake.intents[0]).toMatchObject({
      amount: first.charge.fee_details.total.amount,
      currency: 'usd',
      customer: 'cus_renewals',
      payment_method: 'pm_card_saved',
      metadata: { charge_id: first.charge.charge_id, off_session: 'true', mode: 'live' },
    });
    expect(t.charges.events.map((e) => [e.subject, (e.data as PaymentOutcome).payment_type])).toEqual([
      ['payments.payment.succeeded', 'subscription'],
    ]);
    expect(await t.charge()).toMatchObject({ replayed: true, charge: { charge_id: first.charge.charge_id } });
    expect(t.fake.creates()).toBe(1);

    // The refund finds the payment by the PaymentIntent the charge recorded.
    const refunds = new RefundService({ charges: t.charges, processors: t.processors }, { staleAfterMs: 60_000 });
    const refund = await refunds.create(
      1000,
      'live',
      first.charge.charge_id,
      { amount: { amount: 1_000, currency: 'USD' } },
      {},
    );
    expect(refund).toMatchObject({ refund: { status: 'pending' } });
    const sent = t.stripe.seen.find((r) => r.path === '/v1/refunds')!;
    expect(Object.fromEntries(new URLSearchParams(sent.body))).toMatchObject({
      payment_intent: 'pi_fake_1',
      amount: '1000',
      'metadata[charge_id]': first.charge.charge_id,
    });
  });

  it.each(['card_declined', 'authentication_required'])(
    '%s: the charge fails with the decline code (the subscription’s dunning reads it), no second try',
    async (code) => {
      const t = await live();
      t.fake.state.next = { code, decline_code: code === 'card_declined' ? 'generic_decline' : code };
      const expected = code === 'card_declined' ? 'generic_decline' : code;
      const result = await t.charge();
      expect(result.charge).toMatchObject({
        status: 'failed',
        failure_reason: expected,
        processor_reference: 'pi_fake_1',
      });
      // What ChargePaymentMethod answers subscriptions: the decline code its dunning decides on.
      expect(offSessionChargeResource(result)).toMatchObject({ status: 'failed', decline_code: expected });
      expect(t.charges.events.map((e) => [e.subject, (e.data as PaymentOutcome).failure_reason])).toEqual([
        ['payments.payment.failed', expected],
      ]);
      expect(await t.charge()).toMatchObject({ replayed: true, charge: { status: 'failed' } });
      expect(t.fake.creates()).toBe(1);
    },
  );

  it('no answer in time is an unknown outcome; the repeat once stale finds that PaymentIntent: one payment', async () => {
    const t = await live({ timeoutMs: 150 });
    t.fake.state.hangNext = true; // Stripe makes the PaymentIntent; its answer never arrives
    expect(await codeOf(t.charge())).toBe('UPSTREAM_TIMEOUT');
    expect(t.only()).toMatchObject({ status: 'pending', processor_reference: null });
    expect(t.fake.intents).toHaveLength(1);
    expect(await codeOf(t.charge())).toBe('IDEMPOTENCY_IN_FLIGHT');
    t.tick(31_000);
    const repeat = await t.charge();
    expect(repeat).toMatchObject({
      replayed: false,
      charge: { status: 'succeeded', processor_reference: 'pi_fake_1', attempts: 2 },
    });
    expect(t.fake.requests).toEqual(['POST /v1/payment_intents', 'GET /v1/payment_intents']);
    expect(t.charges.events).toHaveLength(1);
  });

  it('reclaimed after Stripe forgot the key (more than a day on): found, never made again', async () => {
    const t = await live({ timeoutMs: 150 });
    t.fake.state.hangNext = true;
    expect(await codeOf(t.charge())).toBe('UPSTREAM_TIMEOUT');
    t.fake.forgetKeys();
    t.tick(25 * HOUR);
    expect((await t.charge()).charge).toMatchObject({ status: 'succeeded', processor_reference: 'pi_fake_1' });
    expect(t.fake.intents).toHaveLength(1);
    expect(t.fake.creates()).toBe(1);
  });

  it('Stripe unavailable: nothing charged; the repeat looks first, then makes the one PaymentIntent', async () => {
    const t = await live();
    t.fake.state.unavailableNext = 1;
    expect(await codeOf(t.charge())).toBe('SERVICE_UNAVAILABLE');
    expect(t.only()).toMatchObject({ status: 'pending' });
    expect(t.fake.intents).toHaveLength(0);
    t.tick(31_000);
    expect((await t.charge()).charge).toMatchObject({ status: 'succeeded', processor_reference: 'pi_fake_1' });
    expect(t.fake.requests).toEqual([
      'POST /v1/payment_intents',
      'GET /v1/payment_intents',
      'POST /v1/payment_intents',
    ]);
    expect(t.fake.intents).toHaveLength(1);
  });

  it('an installment part is charged the same way, its part in the payment event', async () => {
    const t = await live();
    t.fake.state.next = { code: 'authentication_required', decline_code: 'authentication_required' };
    const part: OffSessionCharge = {
      ...renewal,
      idempotency_key: 'inst:ip_live:2:1',
      frequency: null,
      installment: { plan_id: 'ip_live', number: 2, count: 3, remaining_if_paid: { amount: 2_500, currency: 'USD' } },
    };
    const result = await t.service.charge(1000, 'live', part);
    expect(result.charge).toMatchObject({ status: 'failed', failure_reason: 'authentication_required' });
    expect(t.charges.events[0]!.data).toMatchObject({
      payment_type: 'installment',
      installment: { plan_id: 'ip_live', number: 2, amount_remaining: { amount: 5_000, currency: 'USD' } },
    });
  });
});
