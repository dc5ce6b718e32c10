import Stripe from 'stripe';
import { outboxEvent, SUBJECTS } from '@ppay/kernel';
import { OutcomeService } from '../charges/outcomes';
import { paymentOutcome } from '../charges/payment-outcome';
import { testCharge, testFees } from '../charges/charge.test-util';
import { MemoryCharges } from '../memory-ports.test-util';
import { LiveChargeReconciler } from './live-charge-reconciler';
import { MemoryLiveLookups } from './live-charge-lookups.test-util';
import { PaymentEventApplier } from './payment-events';
import { ProcessorEventInbox } from './processor-events';
import { processorEventHandlers } from './processor-events.handlers';
import { appliersOf, MemoryProcessorEvents, ScriptedAbandons } from './processor-events.test-util';
import { StripeEventVerifier } from './stripe/stripe-events.adapter';
import { stripeEventJson } from './stripe/stripe.test-util';

/**
 * Stripe's events about the PaymentIntents of off-session charges (renewals, installment parts), signed
 * as Stripe signs them, through the inbox (docs/decisions.md S38–S39): they confirm what the charge's
 * own call recorded, never apply it a second time, never cancel first, and raise no alert.
 */
const SECRET = 'whsec_unit_offsession0';
const MINUTE = 60_000;

function setup() {
  let now = new Date('2026-12-01T10:00:00Z');
  const charges = new MemoryCharges();
  const events = new MemoryProcessorEvents();
  const processors = new ScriptedAbandons();
  const finished: string[] = [];
  const payment = new PaymentEventApplier({ charges, outcomes: new OutcomeService(charges, () => now), processors });
  const inbox = new ProcessorEventInbox(
    { events, appliers: appliersOf({ payment }) },
    {
      unmatchedAfterMs: 10 * MINUTE,
      retryMs: 1_000,
      now: () => now,
      onFinished: ({ event }, status) => finished.push(`${event.event_id}:${status}`),
    },
  );
  const handler = processorEventHandlers(
    inbox,
    { stripe: new StripeEventVerifier(Stripe.webhooks, [SECRET]) },
    () => undefined,
    (err) => {
      throw err;
    },
  ).ReceiveProcessorEvent!;
  const post = (payload: string) =>
    (handler as (req: unknown, ctx: unknown) => Promise<{ outcome: string }>)(
      {
        processor: 'stripe',
        payload: Buffer.from(payload),
        signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
      },
      {},
    );
  /** The charge's own call completing it with the processor's answer, as OffSessionChargeService does. */
  const complete = async (status: 'succeeded' | 'failed', reference: string, reason: string | null = null) => {
    const charge = charges.docs.get('ch_off_1')!;
    const event = outboxEvent(
      status === 'succeeded' ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed,
      paymentOutcome(charge, status, reason, now),
      { merchantId: 1000, mode: 'live' },
    );
    await charges.complete('ch_off_1', status, reason, now, event, reference);
  };
  return {
    charges,
    events,
    inbox,
    processors,
    finished,
    post,
    complete,
    status: (id: string) => events.docs.get(`stripe:${id}`)?.status,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    now: () => now,
  };
}

const offSessionCharge = (changes = {}) =>
  testCharge({
    charge_id: 'ch_off_1',
    merchant_id: 1000,
    mode: 'live',
    status: 'pending',
    processor_group: 'card',
    payment_gateway: 'card_gateway',
    processor_reference: null,
    amount: { amount: 2_500, currency: 'USD' },
    total: { amount: 2_500, currency: 'USD' },
    fee_details: testFees('USD', 2_500, 100),
    ...changes,
  });

const intentEvent = (id: string, type: string, intent: Record<string, unknown> = {}) =>
  stripeEventJson(id, type, {
    id: 'pi_off_1',
    object: 'payment_intent',
    amount: 2_500,
    currency: 'usd',
    metadata: { charge_id: 'ch_off_1', merchant_id: '1000', mode: 'live', off_session: 'true' },
    last_payment_error: null,
    ...intent,
  });

describe("Stripe's events about off-session PaymentIntents", () => {
  it('a success arriving before the charge’s own answer waits, then is a duplicate: one payment.succeeded', async () => {
    const t = setup();
    await t.charges.insert(offSessionCharge());
    await t.post(intentEvent('evt_s', 'payment_intent.succeeded'));
    await t.inbox.applyDue();
    expect(t.status('evt_s')).toBe('received'); // later: the charge's call completes it
    expect(t.charges.docs.get('ch_off_1')!.status).toBe('pending');
    await t.complete('succeeded', 'pi_off_1');
    t.advance(2_000);
    await t.inbox.applyDue();
    expect(t.status('evt_s')).toBe('duplicate');
    expect(t.charges.events.map((e) => e.subject)).toEqual([SUBJECTS.paymentSucceeded]);
    expect(t.processors.asked).toEqual([]);
  });

  it('a payment_failed of a declined off-session charge is a duplicate: no cancel, no second payment.failed', async () => {
    const t = setup();
    await t.charges.insert(offSessionCharge());
    await t.complete('failed', 'pi_off_1', 'authentication_required');
    await t.post(
      intentEvent('evt_f', 'payment_intent.payment_failed', {
        status: 'requires_payment_method',
        last_payment_error: { code: 'authentication_required', decline_code: 'authentication_required' },
      }),
    );
    await t.inbox.applyDue();
    expect(t.status('evt_f')).toBe('duplicate');
    expect(t.processors.asked).toEqual([]);
    expect(t.charges.docs.get('ch_off_1')).toMatchObject({
      status: 'failed',
      failure_reason: 'authentication_required',
    });
    expect(t.charges.events.map((e) => e.subject)).toEqual([SUBJECTS.paymentFailed]);
    expect(new Set(t.finished)).toEqual(new Set(['evt_f:duplicate'])); // no mismatch, no stale: no alert
  });

  it('a second PaymentIntent for one charge, another amount, or money taken we recorded as declined: kept, never applied', async () => {
    const t = setup();
    await t.charges.insert(offSessionCharge());
    await t.complete('failed', 'pi_off_1', 'card_declined');
    await t.post(intentEvent('evt_other', 'payment_intent.succeeded', { id: 'pi_off_2' }));
    await t.post(intentEvent('evt_amount', 'payment_intent.payment_failed', { amount: 9_999 }));
    await t.post(intentEvent('evt_took', 'payment_intent.succeeded'));
    await t.inbox.applyDue();
    expect([t.status('evt_other'), t.status('evt_amount'), t.status('evt_took')]).toEqual([
      'mismatch',
      'mismatch',
      'stale',
    ]);
    expect(t.charges.docs.get('ch_off_1')!.status).toBe('failed');
    expect(t.charges.events).toHaveLength(1);
  });

  it('a charge whose answer is lost (a timeout) is not watched by the reconciler: its caller’s retry settles it', async () => {
    const t = setup();
    await t.charges.insert(offSessionCharge());
    const lookups = new MemoryLiveLookups(t.charges);
    const reconciler = new LiveChargeReconciler(
      { lookups, processors: t.processors, inbox: t.inbox },
      { afterMs: 15 * MINUTE, maxAgeMs: 24 * 60 * MINUTE, batch: 10, processor: 'stripe', now: t.now },
    );
    t.advance(16 * MINUTE);
    expect(await reconciler.run()).toEqual({ outcomes: {}, stale: 0 });
    expect(lookups.askedAt.get('ch_off_1')).toBeNull();
    t.advance(16 * MINUTE);
    await reconciler.run();
    expect(t.processors.lookedUp).toEqual([]);
    // Its event waits for the retry, then confirms it.
    await t.post(intentEvent('evt_late', 'payment_intent.succeeded'));
    await t.inbox.applyDue();
    await t.complete('succeeded', 'pi_off_1');
    t.advance(2_000);
    await t.inbox.applyDue();
    expect(t.status('evt_late')).toBe('duplicate');
  });
});
