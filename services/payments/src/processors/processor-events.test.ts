import Stripe from 'stripe';
import { PlatformError, SUBJECTS } from '@ppay/kernel';
import { OutcomeService } from '../charges/outcomes';
import { testCharge, testFees } from '../charges/charge.test-util';
import { MemoryCharges } from '../memory-ports.test-util';
import { PaymentEventApplier } from './payment-events';
import { ProcessorEventInbox } from './processor-events';
import { processorEventHandlers } from './processor-events.handlers';
import { appliersOf, MemoryProcessorEvents, ScriptedAbandons } from './processor-events.test-util';
import { StripeEventVerifier } from './stripe/stripe-events.adapter';
import { stripeEventJson } from './stripe/stripe.test-util';

/**
 * Inbound Stripe events end to end in memory: signed as Stripe signs them (the library's test
 * header), verified, stored once, then applied through the charge outcome use case.
 */
const SECRET = 'whsec_unit_current000';
const OLD_SECRET = 'whsec_unit_previous00';

function setup() {
  let now = new Date('2026-12-01T10:00:00Z');
  const charges = new MemoryCharges();
  const events = new MemoryProcessorEvents();
  const counted: string[] = [];
  const processors = new ScriptedAbandons();
  const abandonFailures: string[] = [];
  const payment = new PaymentEventApplier(
    { charges, outcomes: new OutcomeService(charges, () => now), processors },
    (e, err) => abandonFailures.push(`${e.event_id}:${(err as PlatformError).code}`),
  );
  const inbox = new ProcessorEventInbox(
    // Refund and dispute events have their own tests (refunds/refund-events.test.ts, disputes/dispute-events.test.ts).
    { events, appliers: appliersOf({ payment }) },
    { unmatchedAfterMs: 60_000, retryMs: 1_000, now: () => now },
  );
  const verifier = new StripeEventVerifier(Stripe.webhooks, [SECRET, OLD_SECRET]);
  const handler = processorEventHandlers(
    inbox,
    { stripe: verifier },
    (_p, t, o) => counted.push(`${t}:${o}`),
    (err) => {
      throw err;
    },
  ).ReceiveProcessorEvent!;
  const post = (payload: string, signature: string) =>
    (handler as (req: unknown, ctx: unknown) => Promise<{ outcome: string }>)(
      { processor: 'stripe', payload: Buffer.from(payload), signature },
      {},
    );
  return {
    charges,
    events,
    inbox,
    processors,
    abandonFailures,
    counted,
    post,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

const liveCharge = (changes = {}) =>
  testCharge({
    charge_id: 'ch_live_1',
    merchant_id: 1000,
    mode: 'live',
    status: 'pending',
    processor_group: 'card',
    payment_gateway: 'card_gateway',
    processor_reference: 'pi_live_1',
    amount: { amount: 2_500, currency: 'USD' },
    total: { amount: 2_500, currency: 'USD' },
    fee_details: testFees('USD', 2_500, 100),
    ...changes,
  });

function stripeEvent(id: string, type: string, intent: Record<string, unknown> = {}) {
  return stripeEventJson(id, type, {
    id: 'pi_live_1',
    object: 'payment_intent',
    amount: 2_500,
    currency: 'usd',
    metadata: { charge_id: 'ch_live_1', merchant_id: '1000', mode: 'live' },
    last_payment_error: null,
    ...intent,
  });
}

const sign = (payload: string, secret = SECRET) => Stripe.webhooks.generateTestHeaderString({ payload, secret });

describe('inbound processor events', () => {
  it('a signed payment_intent.succeeded is stored once, acknowledged, then settles the charge exactly once', async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    const payload = stripeEvent('evt_1', 'payment_intent.succeeded');
    expect(await t.post(payload, sign(payload))).toEqual({ outcome: 'received' });
    expect(t.events.docs.get('stripe:evt_1')?.status).toBe('received');
    // Delivered again before and after it is applied: no second effect.
    expect(await t.post(payload, sign(payload))).toEqual({ outcome: 'duplicate' });
    await t.inbox.applyDue();
    expect(await t.post(payload, sign(payload))).toEqual({ outcome: 'duplicate' });
    await t.inbox.applyDue();
    const charge = t.charges.docs.get('ch_live_1')!;
    expect(charge.status).toBe('succeeded');
    expect(t.charges.events.filter((e) => e.subject === SUBJECTS.paymentSucceeded)).toHaveLength(1);
    expect(t.events.docs.get('stripe:evt_1')?.status).toBe('applied');
    expect(t.counted).toEqual([
      'payment_intent.succeeded:received',
      'payment_intent.succeeded:duplicate',
      'payment_intent.succeeded:duplicate',
    ]);
  });

  it('a payment_failed fails the charge with the decline code only once its payment is cancelled at the processor', async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    const failed = stripeEvent('evt_f', 'payment_intent.payment_failed', {
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' },
    });
    await t.post(failed, sign(failed));
    await t.inbox.applyDue();
    // The background run and the sweep may both ask: the same request (one idempotency key) each time.
    expect(new Set(t.processors.asked.map((a) => JSON.stringify(a)))).toEqual(
      new Set([JSON.stringify({ charge_id: 'ch_live_1', processor_reference: 'pi_live_1', failure_id: 'evt_f' })]),
    );
    expect(t.charges.docs.get('ch_live_1')).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds' });
    expect(t.charges.events.filter((e) => e.subject === SUBJECTS.paymentFailed)).toHaveLength(1);
    expect(t.events.docs.get('stripe:evt_f')?.status).toBe('applied');
    // Cannot happen once cancelled; if it ever came, a final state still never moves: kept as stale (alerted).
    const late = stripeEvent('evt_s', 'payment_intent.succeeded');
    await t.post(late, sign(late));
    await t.inbox.applyDue();
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('failed');
    expect(t.events.docs.get('stripe:evt_s')?.status).toBe('stale');
  });

  it('a failure the customer overtook (the payment succeeded when cancelled) settles the charge succeeded, never failed', async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    t.processors.next = 'succeeded';
    const failed = stripeEvent('evt_f', 'payment_intent.payment_failed');
    await t.post(failed, sign(failed));
    await t.inbox.applyDue();
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('succeeded');
    expect(t.charges.events.map((e) => e.subject)).toEqual([SUBJECTS.paymentSucceeded]);
    expect(t.events.docs.get('stripe:evt_f')?.status).toBe('superseded');
    // Its own success event then finds the charge already succeeded.
    const success = stripeEvent('evt_s', 'payment_intent.succeeded');
    await t.post(success, sign(success));
    await t.inbox.applyDue();
    expect(t.events.docs.get('stripe:evt_s')?.status).toBe('duplicate');
    expect(t.charges.events).toHaveLength(1);
  });

  it("a new attempt processing when cancelled leaves the charge pending for that attempt's own event", async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    t.processors.next = 'processing';
    const failed = stripeEvent('evt_f1', 'payment_intent.payment_failed');
    await t.post(failed, sign(failed));
    await t.inbox.applyDue();
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('pending');
    expect(t.events.docs.get('stripe:evt_f1')?.status).toBe('superseded');
    // That attempt is declined too: its own failure is cancelled, under its own id, and fails the charge.
    t.processors.next = 'cancelled';
    const again = stripeEvent('evt_f2', 'payment_intent.payment_failed');
    await t.post(again, sign(again));
    await t.inbox.applyDue();
    expect(new Set(t.processors.asked.map((a) => a.failure_id))).toEqual(new Set(['evt_f1', 'evt_f2']));
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('failed');
  });

  it('a processor that cannot be asked to cancel leaves the event pending and the charge untouched; the sweep retries', async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    t.processors.next = new PlatformError('SERVICE_UNAVAILABLE');
    const failed = stripeEvent('evt_f', 'payment_intent.payment_failed');
    await t.post(failed, sign(failed));
    await t.inbox.applyDue();
    t.processors.next = new PlatformError('UPSTREAM_TIMEOUT');
    // Past the time an event waits for its charge: a processor outage never drops or fails anything.
    for (let i = 0; i < 8; i++) {
      t.advance(20_000);
      await t.inbox.applyDue();
    }
    const record = t.events.docs.get('stripe:evt_f')!;
    expect(record.status).toBe('received');
    expect(record.attempts).toBeGreaterThanOrEqual(4);
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('pending');
    expect(t.charges.events).toHaveLength(0);
    expect(t.abandonFailures).toContain('evt_f:SERVICE_UNAVAILABLE');
    expect(t.abandonFailures).toContain('evt_f:UPSTREAM_TIMEOUT');
    // Backing off: at most 64 retry delays apart, so the next sweep after that cancels and fails it.
    t.processors.next = 'cancelled';
    t.advance(64_000);
    await t.inbox.applyDue();
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('failed');
    expect(t.events.docs.get('stripe:evt_f')?.status).toBe('applied');
  });

  it('a failed attempt arriving after the charge succeeded is superseded, not a conflict, and nothing is cancelled', async () => {
    const t = setup();
    await t.charges.insert(liveCharge({ status: 'succeeded' }));
    const failed = stripeEvent('evt_f', 'payment_intent.payment_failed');
    await t.post(failed, sign(failed));
    await t.inbox.applyDue();
    expect(t.events.docs.get('stripe:evt_f')?.status).toBe('superseded');
    expect(t.processors.asked).toHaveLength(0);
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('succeeded');
  });

  it('a bad, missing, tampered or too old signature is refused and nothing is stored', async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    const payload = stripeEvent('evt_forged', 'payment_intent.succeeded');
    const old = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    const tampered = payload.replace('2500', '9999');
    for (const [body, signature] of [
      [payload, ''],
      [payload, 'garbage'],
      [payload, sign(payload, 'whsec_someone_else00')],
      [tampered, sign(payload)],
      [payload, old],
    ] as const) {
      await expect(t.post(body, signature)).rejects.toMatchObject({ code: 'PROCESSOR_SIGNATURE_INVALID' });
    }
    expect(t.events.docs.size).toBe(0);
    expect(t.counted.every((c) => c === 'unverified:signature_invalid')).toBe(true);
    expect(t.counted).toHaveLength(5);
  });

  it('accepts events signed with either secret of a roll', async () => {
    const t = setup();
    const payload = stripeEvent('evt_old', 'payment_intent.succeeded');
    expect(await t.post(payload, sign(payload, OLD_SECRET))).toEqual({ outcome: 'received' });
  });

  it('an amount, currency or payment id that does not match our record is kept, not applied', async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    for (const [id, intent] of [
      ['evt_amount', { amount: 2_499 }],
      ['evt_currency', { currency: 'eur' }],
      ['evt_reference', { id: 'pi_other' }],
    ] as const) {
      const payload = stripeEvent(id, 'payment_intent.succeeded', intent);
      await t.post(payload, sign(payload));
    }
    await t.inbox.applyDue();
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('pending');
    expect([...t.events.docs.values()].map((e) => e.status)).toEqual(['mismatch', 'mismatch', 'mismatch']);
  });

  it('unknown types, and payments the platform did not make, are acknowledged and ignored', async () => {
    const t = setup();
    const other = stripeEvent('evt_c', 'customer.created');
    expect(await t.post(other, sign(other))).toEqual({ outcome: 'ignored' });
    const foreign = stripeEvent('evt_x', 'payment_intent.succeeded', { metadata: {} });
    expect(await t.post(foreign, sign(foreign))).toEqual({ outcome: 'ignored' });
    expect(t.events.docs.size).toBe(0);
  });

  it('an event before its charge is initialised waits, is applied once it is, and is unmatched if it never is', async () => {
    const t = setup();
    await t.charges.insert(liveCharge({ status: 'initializing', processor_reference: null }));
    const payload = stripeEvent('evt_early', 'payment_intent.succeeded');
    await t.post(payload, sign(payload));
    await t.inbox.applyDue();
    expect(t.events.docs.get('stripe:evt_early')?.status).toBe('received');
    expect(t.events.docs.get('stripe:evt_early')!.attempts).toBeGreaterThan(0);
    await t.charges.markInitialised('ch_live_1', { processor_reference: 'pi_live_1' });
    t.advance(1_000);
    await t.inbox.applyDue();
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('succeeded');

    const orphan = stripeEvent('evt_orphan', 'payment_intent.succeeded', {
      metadata: { charge_id: 'ch_missing', merchant_id: '1000', mode: 'live' },
    });
    await t.post(orphan, sign(orphan));
    await t.inbox.applyDue();
    t.advance(61_000);
    await t.inbox.applyDue();
    expect(t.events.docs.get('stripe:evt_orphan')?.status).toBe('unmatched');
  });

  it('a sandbox charge is never settled by a processor event', async () => {
    const t = setup();
    await t.charges.insert(liveCharge({ mode: 'sandbox' }));
    const payload = stripeEvent('evt_sbx', 'payment_intent.succeeded', {
      metadata: { charge_id: 'ch_live_1', merchant_id: '1000', mode: 'sandbox' },
    });
    await t.post(payload, sign(payload));
    await t.inbox.applyDue();
    expect(t.charges.docs.get('ch_live_1')!.status).toBe('pending');
    expect(t.events.docs.get('stripe:evt_sbx')?.status).toBe('mismatch');
  });
});
