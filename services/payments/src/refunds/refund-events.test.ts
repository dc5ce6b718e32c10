import Stripe from 'stripe';
import { PlatformError, SUBJECTS, type PaymentRefunded } from '@ppay/kernel';
import { testCharge, testFees } from '../charges/charge.test-util';
import { MemoryCharges } from '../memory-ports.test-util';
import type { ProcessorAdapter, RefundAnswer, RefundIntent } from '../processors/ports';
import { ProcessorEventInbox } from '../processors/processor-events';
import { processorEventHandlers } from '../processors/processor-events.handlers';
import { appliersOf, MemoryProcessorEvents } from '../processors/processor-events.test-util';
import { StaticProcessorRegistry } from '../processors/sandbox-processors.adapter';
import { StripeEventVerifier } from '../processors/stripe/stripe-events.adapter';
import { refundableAmount } from './charge-refunds';
import { RefundEventApplier } from './refund-events';
import { RefundService } from './refunds';
import { stripeEventJson } from '../processors/stripe/stripe.test-util';

/**
 * Live refunds end to end in memory: a live processor that answers `pending`, then Stripe's refund
 * events signed as Stripe signs them, verified, stored once and applied through the refund use case.
 */
const SECRET = 'whsec_unit_refunds000';

function setup() {
  let now = new Date('2026-12-01T10:00:00Z');
  const charges = new MemoryCharges();
  const events = new MemoryProcessorEvents();
  const asked: RefundIntent[] = [];
  let next: RefundAnswer | Error = { status: 'pending', processor_reference: 're_stripe_1' };
  const live: ProcessorAdapter = {
    id: 'card_gateway',
    mode: 'live',
    features: ['charges', 'refunds'],
    initialise: () => Promise.reject(new Error('not used')),
    initialiseCheckout: () => Promise.reject(new Error('not used')),
    checkoutPayment: () => Promise.reject(new Error('not used')),
    abandon: () => Promise.reject(new Error('not used')),
    lookUp: () => Promise.reject(new Error('not used')),
    refund: async (request) => {
      asked.push(request);
      if (next instanceof Error) throw next;
      return next;
    },
  };
  const processors = new StaticProcessorRegistry({
    timeoutMs: 1_000,
    resetTimeoutMs: 1_000,
    cardPublishableKey: 'pk',
    live: { card: live },
  });
  const settled: string[] = [];
  const refunds = new RefundService(
    { charges, processors },
    { staleAfterMs: 60_000, onSettled: (r) => settled.push(r.status) },
    () => now,
  );
  const inbox = new ProcessorEventInbox(
    {
      events,
      appliers: appliersOf({ refund: new RefundEventApplier({ charges, refunds }) }),
    },
    { unmatchedAfterMs: 60_000, retryMs: 1_000, now: () => now },
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
  return {
    charges,
    events,
    inbox,
    refunds,
    asked,
    settled,
    post,
    answer: (a: RefundAnswer | Error) => (next = a),
    charge: () => charges.docs.get('ch_live_1')!,
    refundedEvents: () =>
      charges.events.filter((e) => e.subject === SUBJECTS.paymentRefunded).map((e) => e.data as PaymentRefunded),
    status: (id: string) => events.docs.get(`stripe:${id}`),
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    /** Lets the handler's background run finish (all in memory), then sweeps what is due. */
    drain: async () => {
      await new Promise((r) => setImmediate(r));
      await inbox.applyDue();
    },
  };
}

async function withRefund(t: ReturnType<typeof setup>, amount = 1_000) {
  await t.charges.insert(
    testCharge({
      charge_id: 'ch_live_1',
      merchant_id: 1000,
      mode: 'live',
      status: 'succeeded',
      processor_group: 'card',
      payment_gateway: 'card_gateway',
      processor_reference: 'pi_live_1',
      amount: { amount: 2_500, currency: 'USD' },
      total: { amount: 2_500, currency: 'USD' },
      fee_details: testFees('USD', 2_500, 100),
      amount_refunded: { amount: 0, currency: 'USD' },
      amount_disputed: { amount: 0, currency: 'USD' },
    }),
  );
  return t.refunds.create(1000, 'live', 'ch_live_1', { amount: { amount, currency: '' } }, { idempotencyKey: 'k1' });
}

/** A Stripe refund.* event about our refund `refundId` (the Refund object with our metadata). */
function refundEvent(id: string, type: string, refundId: string, refund: Record<string, unknown> = {}) {
  return stripeEventJson(id, type, {
    id: 're_stripe_1',
    object: 'refund',
    amount: 1_000,
    currency: 'usd',
    status: 'succeeded',
    payment_intent: 'pi_live_1',
    failure_reason: null,
    metadata: { refund_id: refundId, charge_id: 'ch_live_1', merchant_id: '1000', mode: 'live' },
    ...refund,
  });
}

describe('live refunds answered pending, settled by their processor events', () => {
  it('a pending answer keeps the refund pending with its processor id and its amount reserved, announcing nothing', async () => {
    const t = setup();
    const { refund } = await withRefund(t);
    expect(refund).toMatchObject({ status: 'pending', processor_reference: 're_stripe_1' });
    expect(t.charge().refunds[0]).toMatchObject({ status: 'pending', processor_reference: 're_stripe_1' });
    expect(refundableAmount(t.charge()).amount).toBe(1_500);
    expect(t.charge().amount_refunded.amount).toBe(0);
    expect(t.refundedEvents()).toEqual([]);
    expect(t.settled).toEqual([]);
    expect(t.asked[0]).toMatchObject({ processor_reference: 'pi_live_1', refund_reference: null, asked_before: false });
  });

  it('refund.updated succeeded settles it once: amount_refunded, one payment.refunded, redeliveries duplicate', async () => {
    const t = setup();
    const { refund } = await withRefund(t);
    const payload = refundEvent('evt_r1', 'refund.updated', refund.refund_id);
    expect(await t.post(payload)).toEqual({ outcome: 'received' });
    await t.drain();
    expect(await t.post(payload)).toEqual({ outcome: 'duplicate' });
    // The same state in another event (Stripe sends several): a repeat, not a second refund.
    await t.post(refundEvent('evt_r2', 'refund.updated', refund.refund_id));
    await t.drain();
    expect(t.charge().refunds[0]).toMatchObject({ status: 'succeeded', processor_reference: 're_stripe_1' });
    expect(t.charge().amount_refunded.amount).toBe(1_000);
    expect(t.refundedEvents()).toHaveLength(1);
    expect(t.refundedEvents()[0]!.refund).toMatchObject({ refund_id: refund.refund_id, refunded_before: 0 });
    expect(t.settled).toEqual(['succeeded']);
    expect(t.status('evt_r1')?.status).toBe('applied');
    expect(t.status('evt_r2')?.status).toBe('duplicate');
  });

  it("refund.failed fails it with Stripe's reason and frees its amount; nothing is announced", async () => {
    const t = setup();
    const { refund } = await withRefund(t);
    await t.post(
      refundEvent('evt_f', 'refund.failed', refund.refund_id, {
        status: 'failed',
        failure_reason: 'lost_or_stolen_card',
      }),
    );
    await t.drain();
    expect(t.charge().refunds[0]).toMatchObject({ status: 'failed', failure_reason: 'lost_or_stolen_card' });
    expect(refundableAmount(t.charge()).amount).toBe(2_500);
    expect(t.refundedEvents()).toEqual([]);
    expect(t.status('evt_f')?.status).toBe('applied');
  });

  it('a request that timed out leaves the refund pending without an id; the event names and settles it', async () => {
    const t = setup();
    t.answer(new PlatformError('UPSTREAM_TIMEOUT'));
    await expect(withRefund(t)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    const pending = t.charge().refunds[0]!;
    expect(pending).toMatchObject({ status: 'pending', processor_reference: null });
    await t.post(refundEvent('evt_created', 'refund.created', pending.refund_id, { status: 'pending' }));
    await t.drain();
    expect(t.charge().refunds[0]).toMatchObject({ status: 'pending', processor_reference: 're_stripe_1' });
    expect(t.status('evt_created')?.status).toBe('applied');
    await t.post(refundEvent('evt_created_again', 'refund.updated', pending.refund_id, { status: 'pending' }));
    await t.post(refundEvent('evt_done', 'refund.updated', pending.refund_id));
    await t.drain();
    expect(t.status('evt_created_again')?.status).toBe('duplicate');
    expect(t.charge().refunds[0]!.status).toBe('succeeded');
    expect(t.refundedEvents()).toHaveLength(1);
  });

  it('the sweep asks about a pending refund by its processor id, never as a new refund', async () => {
    const t = setup();
    await withRefund(t);
    t.answer({ status: 'succeeded', processor_reference: 're_stripe_1' });
    t.advance(61_000);
    expect(await t.refunds.resumeStale()).toBe(1);
    expect(t.asked[1]).toMatchObject({ refund_reference: 're_stripe_1', asked_before: true });
    expect(t.charge().refunds[0]!.status).toBe('succeeded');
  });

  it('a final refund never moves backwards: a later failure or an older pending event is stale', async () => {
    const t = setup();
    t.answer({ status: 'succeeded', processor_reference: 're_stripe_1' });
    const { refund } = await withRefund(t);
    await t.post(refundEvent('evt_late_fail', 'refund.failed', refund.refund_id, { status: 'failed' }));
    await t.post(refundEvent('evt_old_pending', 'refund.created', refund.refund_id, { status: 'pending' }));
    await t.drain();
    expect(t.status('evt_late_fail')).toMatchObject({
      status: 'stale',
      note: 'the refund is succeeded; the processor says failed',
    });
    expect(t.status('evt_old_pending')?.status).toBe('stale');
    expect(t.charge().refunds[0]!.status).toBe('succeeded');
    expect(t.refundedEvents()).toHaveLength(1);
  });

  it.each([
    ['an amount', { amount: 999 }, 'event 999 USD, refund 1000 USD'],
    ['a currency', { currency: 'eur' }, 'event 1000 EUR, refund 1000 USD'],
    ['a refund id', { id: 're_other' }, "refund re_other is not the refund's"],
    ['a payment', { payment_intent: 'pi_other' }, "payment pi_other is not the charge's"],
  ])('%s that does not match our record is kept for an operator, not applied', async (_name, change, note) => {
    const t = setup();
    const { refund } = await withRefund(t);
    await t.post(refundEvent('evt_m', 'refund.updated', refund.refund_id, change));
    await t.drain();
    expect(t.status('evt_m')).toMatchObject({ status: 'mismatch', note });
    expect(t.charge().refunds[0]!.status).toBe('pending');
  });

  it('an event before its refund is recorded waits, then is unmatched if it never is', async () => {
    const t = setup();
    await withRefund(t);
    await t.post(refundEvent('evt_early', 'refund.updated', 're_not_yet'));
    await t.drain();
    expect(t.status('evt_early')).toMatchObject({ status: 'received', attempts: 1 });
    t.advance(61_000);
    await t.drain();
    expect(t.status('evt_early')?.status).toBe('unmatched');
  });

  it('a sandbox charge is never settled by a processor event', async () => {
    const t = setup();
    const { refund } = await withRefund(t);
    t.charges.docs.get('ch_live_1')!.mode = 'sandbox';
    await t.post(
      refundEvent('evt_sbx', 'refund.updated', refund.refund_id, {
        metadata: { refund_id: refund.refund_id, charge_id: 'ch_live_1', merchant_id: '1000', mode: 'sandbox' },
      }),
    );
    await t.drain();
    expect(t.status('evt_sbx')).toMatchObject({ status: 'mismatch', note: 'the charge is sandbox' });
  });

  it('refunds the platform did not make, and charge.refunded, are acknowledged and ignored', async () => {
    const t = setup();
    expect(await t.post(refundEvent('evt_x', 'refund.updated', 're_1', { metadata: {} }))).toEqual({
      outcome: 'ignored',
    });
    expect(await t.post(refundEvent('evt_ngn', 'refund.updated', 're_1', { currency: 'ngn' }))).toEqual({
      outcome: 'ignored',
    });
    expect(await t.post(refundEvent('evt_ch', 'charge.refunded', 're_1', { object: 'charge' }))).toEqual({
      outcome: 'ignored',
    });
    expect(t.events.docs.size).toBe(0);
  });
});
