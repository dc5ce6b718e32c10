import { PlatformError, SUBJECTS } from '@ppay/kernel';
import { OutcomeService } from '../charges/outcomes';
import { testCharge, testFees } from '../charges/charge.test-util';
import { MemoryCharges } from '../memory-ports.test-util';
import { LiveChargeReconciler } from './live-charge-reconciler';
import { MemoryLiveLookups } from './live-charge-lookups.test-util';
import { PaymentEventApplier } from './payment-events';
import { ProcessorEventInbox } from './processor-events';
import { appliersOf, MemoryProcessorEvents, ScriptedAbandons } from './processor-events.test-util';

/** The reconciler of missed events over the inbox and the charge outcome use case, all in memory. */
const MINUTE = 60_000;
const CREATED = new Date('2026-12-01T10:00:00Z');

function setup(options: { batch?: number } = {}) {
  let now = CREATED;
  const charges = new MemoryCharges();
  const events = new MemoryProcessorEvents();
  const processors = new ScriptedAbandons();
  const lookups = new MemoryLiveLookups(charges);
  const payment = new PaymentEventApplier({ charges, outcomes: new OutcomeService(charges, () => now), processors });
  const inbox = new ProcessorEventInbox(
    // The reconciler makes payment events only (refund events have their own tests).
    { events, appliers: appliersOf({ payment }) },
    { unmatchedAfterMs: MINUTE, retryMs: 1_000, now: () => now },
  );
  const lookUpFailures: string[] = [];
  const reconciler = new LiveChargeReconciler(
    { lookups, processors, inbox },
    {
      afterMs: 15 * MINUTE,
      maxAgeMs: 24 * 60 * MINUTE,
      batch: options.batch ?? 10,
      processor: 'stripe',
      now: () => now,
    },
    (c, err) => lookUpFailures.push(`${c.charge_id}:${(err as PlatformError).code}`),
  );
  return {
    charges,
    events,
    processors,
    reconciler,
    lookUpFailures,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

const USD_25 = { amount: 2_500, currency: 'USD' };

const liveCharge = (id: string, changes = {}) =>
  testCharge(
    {
      charge_id: id,
      merchant_id: 1000,
      mode: 'live',
      status: 'pending',
      processor_group: 'card',
      payment_gateway: 'card_gateway',
      processor_reference: `pi_${id}`,
      amount: USD_25,
      total: USD_25,
      fee_details: testFees('USD', 2_500, 100),
      ...changes,
    },
    CREATED,
  );

describe('reconciler of live charges whose processor event was missed', () => {
  it('a payment the processor says succeeded settles its charge once, through the inbox', async () => {
    const t = setup();
    await t.charges.insert(liveCharge('ch_1'));
    t.processors.lookUps.set('pi_ch_1', { status: 'succeeded', amount: USD_25 });
    // Not due before the threshold.
    t.advance(14 * MINUTE);
    expect(await t.reconciler.run()).toEqual({ outcomes: {}, stale: 0 });
    expect(t.processors.lookedUp).toEqual([]);
    t.advance(2 * MINUTE);
    expect(await t.reconciler.run()).toEqual({ outcomes: { succeeded: 1 }, stale: 0 });
    expect(t.charges.docs.get('ch_1')!.status).toBe('succeeded');
    expect(t.charges.events.filter((e) => e.subject === SUBJECTS.paymentSucceeded)).toHaveLength(1);
    const record = t.events.docs.get('stripe:reconcile:pi_ch_1:succeeded');
    expect(record).toMatchObject({ status: 'applied', event: { type: 'reconcile.succeeded', charge_id: 'ch_1' } });
    // Final: never asked again.
    t.advance(60 * MINUTE);
    await t.reconciler.run();
    expect(t.processors.lookedUp).toEqual(['pi_ch_1']);
  });

  it('a cancelled payment fails its charge only through the cancel-before-fail path', async () => {
    const t = setup();
    await t.charges.insert(liveCharge('ch_1'));
    t.processors.lookUps.set('pi_ch_1', { status: 'failed', amount: USD_25, failure_reason: 'insufficient_funds' });
    t.advance(16 * MINUTE);
    t.processors.next = new PlatformError('SERVICE_UNAVAILABLE');
    expect((await t.reconciler.run()).outcomes).toEqual({ failed: 1 });
    // The processor could not confirm the cancel: the charge stays pending, the inbox retries the event.
    expect(t.charges.docs.get('ch_1')!.status).toBe('pending');
    expect(t.processors.asked).toEqual([
      { charge_id: 'ch_1', processor_reference: 'pi_ch_1', failure_id: 'reconcile:pi_ch_1:failed' },
    ]);
    t.processors.next = 'cancelled';
    // The next look-up is stored once more as the same event (no second record), and the retry applies it.
    t.advance(16 * MINUTE);
    await t.reconciler.run();
    expect([...t.events.docs.keys()]).toEqual(['stripe:reconcile:pi_ch_1:failed']);
    expect(t.charges.docs.get('ch_1')).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds' });
    expect(t.charges.events.filter((e) => e.subject === SUBJECTS.paymentFailed)).toHaveLength(1);
  });

  it('a payment still pending at the processor is asked again only an interval later, and counted stale', async () => {
    const t = setup();
    await t.charges.insert(liveCharge('ch_1'));
    t.advance(16 * MINUTE);
    expect(await t.reconciler.run()).toEqual({ outcomes: { pending: 1 }, stale: 1 });
    t.advance(5 * MINUTE);
    expect(await t.reconciler.run()).toEqual({ outcomes: {}, stale: 1 });
    t.advance(11 * MINUTE);
    await t.reconciler.run();
    expect(t.processors.lookedUp).toEqual(['pi_ch_1', 'pi_ch_1']);
    expect(t.charges.docs.get('ch_1')!.status).toBe('pending');
    expect(t.events.docs.size).toBe(0);
  });

  it('an amount the processor holds that is not the charge’s is kept as a mismatch, never applied', async () => {
    const t = setup();
    await t.charges.insert(liveCharge('ch_1'));
    t.processors.lookUps.set('pi_ch_1', { status: 'succeeded', amount: { amount: 9_999, currency: 'USD' } });
    t.advance(16 * MINUTE);
    await t.reconciler.run();
    expect(t.charges.docs.get('ch_1')!.status).toBe('pending');
    expect(t.events.docs.get('stripe:reconcile:pi_ch_1:succeeded')?.status).toBe('mismatch');
  });

  it('a processor that cannot be asked is reported and asked again an interval later', async () => {
    const t = setup();
    await t.charges.insert(liveCharge('ch_1'));
    t.processors.lookUps.set('pi_ch_1', new PlatformError('SERVICE_UNAVAILABLE'));
    t.advance(16 * MINUTE);
    expect((await t.reconciler.run()).outcomes).toEqual({ error: 1 });
    expect(t.lookUpFailures).toEqual(['ch_1:SERVICE_UNAVAILABLE']);
    await t.reconciler.run();
    expect(t.processors.lookedUp).toHaveLength(1);
    t.processors.lookUps.set('pi_ch_1', { status: 'succeeded', amount: USD_25 });
    t.advance(16 * MINUTE);
    await t.reconciler.run();
    expect(t.charges.docs.get('ch_1')!.status).toBe('succeeded');
  });

  it('asks a bounded batch per run, oldest first, and never about sandbox, initialising or too old charges', async () => {
    const t = setup({ batch: 2 });
    await t.charges.insert(liveCharge('ch_a'));
    await t.charges.insert(liveCharge('ch_sbx', { mode: 'sandbox' }));
    await t.charges.insert(liveCharge('ch_init', { status: 'initializing', processor_reference: null }));
    t.advance(MINUTE);
    await t.charges.insert(testCharge({ ...liveCharge('ch_b'), created_at: new Date(CREATED.getTime() + MINUTE) }));
    t.advance(16 * MINUTE);
    await t.reconciler.run();
    // ch_init took a place in the first batch (it is asked later, once pending), ch_b waits for the next run.
    expect(t.processors.lookedUp).toEqual(['pi_ch_a']);
    await t.reconciler.run();
    expect(t.processors.lookedUp).toEqual(['pi_ch_a', 'pi_ch_b']);
    // A day on, nobody paid: no longer asked about, no longer counted.
    t.advance(24 * 60 * MINUTE);
    expect((await t.reconciler.run()).outcomes).toEqual({ given_up: 1 });
    expect((await t.reconciler.run()).outcomes).toEqual({ given_up: 1 });
    t.advance(16 * MINUTE);
    expect(await t.reconciler.run()).toEqual({ outcomes: {}, stale: 0 });
    expect(t.processors.lookedUp).toEqual(['pi_ch_a', 'pi_ch_b']);
  });
});
