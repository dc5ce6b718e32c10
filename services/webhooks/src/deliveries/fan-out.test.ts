import { createHmac } from 'node:crypto';
import type { EventEnvelope, PaymentOutcome } from '@ppay/kernel';
import { SPEC_POLICY, type DeliveryPolicy } from './delivery-policy';
import { DeliveryWorker } from './delivery-worker';
import { EventLog } from '../webhook-events/event-log';
import { EventFanOut } from './fan-out';
import { MemoryDeliveryStore, MemoryEventStore, MemoryKeys, ScriptedSender } from '../memory-ports.test-util';
import { webhookEventId } from '../webhook-events/webhook-event';

const outcome = (over: Partial<PaymentOutcome> = {}): PaymentOutcome => ({
  charge_id: 'ch_1',
  transaction_id: 'txn_1',
  merchant_id: 1,
  status: 'succeeded',
  payment_type: 'one_time',
  gateway: 'cardgateway',
  reference: 'order-1',
  amount: { amount: 10_150, currency: 'NGN' },
  total: { amount: 10_000, currency: 'NGN' },
  transaction_fee: { amount: 150, currency: 'NGN' },
  customer_pays_fees: true,
  breakdown: {
    customer_paid: { amount: 10_150, currency: 'NGN' },
    merchant_gross: { amount: 10_000, currency: 'NGN' },
    merchant_net: { amount: 10_000, currency: 'NGN' },
    fees: {
      platform_fee: { amount: 150, currency: 'NGN' },
      gateway_fee: { amount: 0, currency: 'NGN' },
      total: { amount: 150, currency: 'NGN' },
    },
  },
  customer: { email: 'c@example.com', first_name: 'Ada', last_name: 'Obi', country: 'NG' },
  sub_merchant_id: null,
  failure_reason: null,
  completed_at: '2026-05-01T10:00:00.000Z',
  session_id: null,
  product: null,
  subscription_frequency_key: null,
  metadata: {},
  ...over,
});

const paymentEvent = (id: string, over: Partial<PaymentOutcome> = {}, mode: 'sandbox' | 'live' = 'sandbox') =>
  ({
    event_id: id,
    subject: 'payments.payment.succeeded',
    occurred_at: '2026-05-01T10:00:00.000Z',
    merchant_id: over.merchant_id ?? 1,
    mode,
    data: outcome(over),
  }) as EventEnvelope;

function setup(policy: Partial<DeliveryPolicy> = {}, options: { handOff?: boolean } = {}) {
  const events = new MemoryEventStore();
  const deliveries = new MemoryDeliveryStore();
  const keys = new MemoryKeys();
  const sender = new ScriptedSender();
  /** How each first attempt got its slot (DeliveryMetricsPort.firstAttempt), in order. */
  const firstAttempts: string[] = [];
  const metrics = {
    attempt: () => undefined,
    finished: () => undefined,
    firstAttempt: (p: string) => firstAttempts.push(p),
  };
  const worker = new DeliveryWorker(
    { deliveries, events, keys, sender, metrics },
    {
      ...SPEC_POLICY,
      retryDelayMs: 30,
      concurrency: 8,
      perKeyConcurrency: 2,
      leaseMs: 60_000,
      pollIntervalMs: 10,
      allowPrivateTargets: true,
      ...policy,
    },
  );
  const fanOut = new EventFanOut({ events, deliveries, keys, ...(options.handOff ? { dispatch: worker } : {}) }, () =>
    worker.wake(),
  );
  const log = new EventLog(
    { events, deliveries, keys, sender, fanOut },
    { allowPrivateTargets: true, timeoutMs: 10_000 },
    () => worker.wake(),
  );
  // Each call as a new JetStream message would arrive: the next stream sequence, unless given.
  let streamSequence = 0;
  const ingest = (envelope: EventEnvelope, sequence = ++streamSequence) => fanOut.ingest(envelope, sequence);
  return { events, deliveries, keys, sender, worker, fanOut, log, ingest, firstAttempts };
}

/**
 * Key `slow` (merchant 1), whose receiver hangs until `release`, and key `fast` (merchant 2), which
 * answers at once; `maxSlow` is the most sends the hanging one had in flight at once.
 */
function hangingAndFastReceivers(t: ReturnType<typeof setup>) {
  t.keys.add({ key_id: 'slow', webhook_url: 'http://127.0.0.1:1/slow' });
  t.keys.add({ key_id: 'fast', merchant_id: 2, webhook_url: 'http://127.0.0.1:1/fast' });
  let release!: () => void;
  const hang = new Promise<void>((r) => (release = r));
  let slowInFlight = 0;
  let maxSlow = 0;
  t.sender.send = async (input) => {
    t.sender.sent.push(input);
    if (input.url.endsWith('/slow')) {
      maxSlow = Math.max(maxSlow, ++slowInFlight);
      await hang;
      slowInFlight--;
    }
    return { status: 200, success: true, duration_ms: 1, error_class: null, response_excerpt: '' };
  };
  return { release, maxSlow: () => maxSlow };
}

/** The test's one delivery, once it has succeeded and the worker has stopped. */
async function onlyDeliveryOnceSucceeded(t: ReturnType<typeof setup>) {
  await until(() => [...t.deliveries.rows.values()][0]?.status === 'succeeded');
  await t.worker.stop();
  return [...t.deliveries.rows.values()][0]!;
}

async function until(check: () => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

describe('EventFanOut', () => {
  it('stores an event once and creates one delivery per active same-mode key with a URL', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k_a' });
    t.keys.add({ key_id: 'k_b', api_version: '2025-06-01' });
    t.keys.add({ key_id: 'k_disabled', active: false });
    t.keys.add({ key_id: 'k_no_url', webhook_url: null });
    t.keys.add({ key_id: 'k_live', mode: 'live' });
    t.keys.add({ key_id: 'k_other', merchant_id: 2 });
    const first = await t.ingest(paymentEvent('src_1'));
    expect(first!.event.event_id).toBe(webhookEventId('src_1', 1));
    expect(first!.event.event_id).toMatch(/^evt_[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first!.created).toBe(2);
    expect([...t.deliveries.rows.values()].map((d) => d.key_id).sort()).toEqual(['k_a', 'k_b']);

    // A redelivered JetStream message: same event, same sequence, nothing new.
    const again = await t.ingest(paymentEvent('src_1'));
    expect(again!.created).toBe(0);
    expect(again!.event.sequence).toBe(1); // the stored one, although the repeat used a number
    expect(t.events.events.size).toBe(1);
  });

  it('takes sequence from the source message: each charge event keeps its stream position, also on a repeat', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    const a = await t.ingest(paymentEvent('s1'), 40);
    const b = await t.ingest({ ...paymentEvent('s2'), subject: 'payments.payment.failed' } as EventEnvelope, 57);
    const again = await t.ingest(paymentEvent('s1'), 40);
    expect([a!.event.sequence, b!.event.sequence, again!.event.sequence]).toEqual([40, 57, 40]);
    expect([a!.event.object_id, b!.event.object_id]).toEqual(['ch_1', 'ch_1']);
    expect(b!.event.event_type).toBe('payment.failed');
    expect(again!.created).toBe(0);
  });

  it('keeps wallet events from keys on versions before 2026-03-27 (the type did not exist)', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k_new' });
    t.keys.add({ key_id: 'k_old', api_version: '2025-12-31' });
    const res = await t.ingest({
      event_id: 'w1',
      subject: 'payments.wallet.credited',
      occurred_at: '2026-05-01T10:00:00.000Z',
      merchant_id: 1,
      mode: 'sandbox',
      data: {
        entry_id: 'ch_1:1:payment',
        merchant_id: 1,
        kind: 'credit',
        reason: 'payment',
        amount: { amount: 10_000, currency: 'NGN' },
        charge_id: 'ch_1',
        split: null,
        created_at: '2026-05-01T10:00:01.000Z',
      },
    } as EventEnvelope);
    expect(res!.event).toMatchObject({
      event_type: 'wallet.credited',
      object_type: 'wallet',
      object_id: '1:sandbox:NGN',
    });
    expect([...t.deliveries.rows.values()].map((d) => d.key_id)).toEqual(['k_new']);
  });

  it('delivers subscription events to the merchant and KYC events to the operator, counted per object', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k_operator' }); // merchant 1: the marketplace
    t.keys.add({ key_id: 'k_sub', merchant_id: 77 }); // the sub-merchant never sees its KYC review
    t.keys.add({ key_id: 'k_old', api_version: '2025-06-01' }); // before these types existed
    const kyc = (id: string, subject: string, version: number) =>
      ({
        event_id: id,
        subject,
        occurred_at: '2026-05-01T10:00:00.000Z',
        merchant_id: 1,
        mode: 'sandbox',
        data: { submission_id: 5, merchant_id: 77, marketplace_id: 1, mode: 'sandbox', status: 'approved', version },
      }) as unknown as EventEnvelope;
    const a = await t.ingest(kyc('kyc_1', 'kyc.submission.updated', 1));
    const b = await t.ingest(kyc('kyc_2', 'kyc.payout_account.updated', 2));
    expect([a!.event.event_type, b!.event.event_type]).toEqual([
      'kyc.submission.updated',
      'kyc.payout_account.updated',
    ]);
    expect(a!.event.object_id).toBe(b!.event.object_id); // one KYC case: both types order against each other
    expect(b!.event.sequence).toBeGreaterThan(a!.event.sequence);
    expect([...t.deliveries.rows.values()].map((d) => d.key_id)).toEqual(['k_operator', 'k_operator']);

    t.keys.add({ key_id: 'k_merchant', merchant_id: 9 });
    const sub = await t.ingest({
      event_id: 'sub_1',
      subject: 'subscriptions.subscription.created',
      occurred_at: '2026-05-01T10:00:00.000Z',
      merchant_id: 9,
      mode: 'sandbox',
      data: { subscription_id: 'sub_abc', merchant_id: 9, status: 'active', effective_at: '2026-06-01T00:00:00.000Z' },
    } as unknown as EventEnvelope);
    expect(sub!.event).toMatchObject({ event_type: 'subscription.created', object_id: 'sub_abc', merchant_id: 9 });
    expect(sub!.event.occurred_at.toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect(sub!.created).toBe(1);
  });

  it('refuses an event without a mode (retried, never defaulted)', async () => {
    const t = setup();
    await expect(t.ingest({ ...paymentEvent('s1'), mode: undefined } as EventEnvelope)).rejects.toThrow(/mode/);
  });
});

describe('DeliveryWorker', () => {
  it('sends signed bodies with the spec headers, rendered per key version', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k_new', webhook_url: 'http://127.0.0.1:1/new' });
    t.keys.add({ key_id: 'k_old', webhook_url: 'http://127.0.0.1:1/old', api_version: '2025-06-01' });
    await t.ingest(paymentEvent('src_1'));
    t.worker.start();
    await until(() => t.sender.sent.length === 2);
    await t.worker.stop();
    const byUrl = Object.fromEntries(t.sender.sent.map((s) => [s.url, s]));
    const current = byUrl['http://127.0.0.1:1/new']!;
    const legacy = byUrl['http://127.0.0.1:1/old']!;
    const body = JSON.parse(current.body);
    expect(body).toMatchObject({
      api_version: '2026-03-27',
      event_type: 'payment.succeeded',
      is_live: false,
      business_id: '1',
      sequence: 1,
      data: { payment_type: 'one_time', gateway: 'cardgateway', amount: { merchant_net: { amount: 10_000 } } },
    });
    expect(current.headers).toMatchObject({
      'x-service-event': 'payment.succeeded',
      'x-service-event-id': body.event_id,
      'x-service-api-version': '2026-03-27',
      'content-type': 'application/json',
      'x-service-signature': createHmac('sha256', 'whsec_current').update(current.body).digest('hex'),
    });
    const t0 = current.headers['x-service-timestamp'];
    expect(current.headers['x-service-signature-v2']).toBe(
      `t=${t0},v1=${createHmac('sha256', 'whsec_current').update(`${t0}.${current.body}`).digest('hex')}`,
    );
    const old = JSON.parse(legacy.body);
    expect(old).not.toHaveProperty('api_version');
    expect(old).not.toHaveProperty('business_id');
    expect(old.data).toEqual({
      transaction_id: 'txn_1',
      amount: 10_000,
      currency: 'NGN',
      status: 'success',
      customer: {
        email: 'c@example.com',
        first_name: 'Ada',
        last_name: 'Obi',
        paid_amount: 10_150,
        paid_currency: 'NGN',
      },
      transaction_details: {
        payment_type: 'one_time',
        product_type: null,
        product_title: null,
        payment_gateway: 'cardgateway',
        created_at: '2026-05-01T10:00:00.000Z',
      },
    });
    expect(legacy.headers['x-service-api-version']).toBe('2025-06-01');
    expect(old.event_id).toBe(body.event_id);
  });

  it('makes 3 attempts per round with the same event id, records each, then fails; resend starts a new round', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    t.sender.answer = () => ({ status: 500, error_class: 'http_error', response_excerpt: 'boom' });
    const { event } = (await t.ingest(paymentEvent('src_1')))!;
    t.worker.start();
    await until(() => [...t.deliveries.rows.values()][0]!.status === 'failed');
    expect(t.sender.sent).toHaveLength(3);
    expect(new Set(t.sender.sent.map((s) => s.headers['x-service-event-id']))).toEqual(new Set([event.event_id]));
    const d = [...t.deliveries.rows.values()][0]!;
    expect(d.attempts.map((a) => [a.number, a.status, a.error_class, a.response_excerpt])).toEqual([
      [1, 500, 'http_error', 'boom'],
      [2, 500, 'http_error', 'boom'],
      [3, 500, 'http_error', 'boom'],
    ]);
    expect(d.attempts[0]!.request_body).toBe(t.sender.sent[0]!.body);

    t.sender.answer = () => ({ status: 204, success: true });
    const resent = await t.log.resend(1, 'sandbox', event.event_id);
    expect(resent.event_id).toBe(event.event_id);
    await until(() => [...t.deliveries.rows.values()][0]!.status === 'succeeded');
    await t.worker.stop();
    expect(t.sender.sent).toHaveLength(4);
    expect([...t.deliveries.rows.values()][0]!.attempt_count).toBe(4);
  });

  it('never retries a blocked target', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    t.sender.answer = () => ({ error_class: 'blocked_target' });
    await t.ingest(paymentEvent('src_1'));
    t.worker.start();
    await until(() => [...t.deliveries.rows.values()][0]!.status === 'failed');
    await new Promise((r) => setTimeout(r, 100));
    await t.worker.stop();
    expect(t.sender.sent).toHaveLength(1);
  });

  it('sends nothing to a key disabled after the event was fanned out', async () => {
    const t = setup();
    const key = t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('src_1'));
    key.active = false;
    t.worker.start();
    await until(() => [...t.deliveries.rows.values()][0]!.status === 'failed');
    await t.worker.stop();
    expect(t.sender.sent).toHaveLength(0);
    expect([...t.deliveries.rows.values()][0]!.last_error_class).toBe('key_inactive');
  });

  it('takes over an expired claim, recording the interrupted attempt without spending the round', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    t.sender.answer = () => ({ status: 500, error_class: 'http_error' });
    await t.ingest(paymentEvent('src_1'));
    // A worker that claimed and died: its lease is already over.
    const dead = await t.deliveries.claim({
      now: new Date(),
      owner: 'dead',
      leaseUntil: new Date(Date.now() - 1),
      limit: 10,
      keyRoom: new Map(),
      perKeyLimit: 8,
    });
    expect(dead).toHaveLength(1);
    t.worker.start();
    await until(() => [...t.deliveries.rows.values()][0]!.status === 'failed');
    await t.worker.stop();
    const d = [...t.deliveries.rows.values()][0]!;
    expect(d.attempts.map((a) => a.error_class)).toEqual(['interrupted', 'http_error', 'http_error', 'http_error']);
    expect(d.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4]);
    expect(t.sender.sent).toHaveLength(3);
  });

  it('caps sends in flight per key so a hanging receiver cannot take the pool', async () => {
    const t = setup({ concurrency: 4, perKeyConcurrency: 2 });
    const { release, maxSlow } = hangingAndFastReceivers(t);
    for (let i = 0; i < 6; i++) await t.ingest(paymentEvent(`slow${i}`, { charge_id: `c${i}` }));
    for (let i = 0; i < 3; i++) await t.ingest(paymentEvent(`fast${i}`, { merchant_id: 2, charge_id: `f${i}` }));
    t.worker.start();
    await until(() => t.sender.sent.filter((s) => s.url.endsWith('/fast')).length === 3);
    expect(maxSlow()).toBe(2);
    release();
    await until(() => t.sender.sent.length === 9);
    await t.worker.stop();
  });
});

describe('EventFanOut batching and the hand-off to the local worker', () => {
  it('writes concurrent events in batches', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    const inserts: number[] = [];
    const insertMany = t.events.insertMany.bind(t.events);
    t.events.insertMany = async (events) => {
      inserts.push(events.length);
      return insertMany(events);
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.ingest(paymentEvent(`s${i}`, { charge_id: 'ch_same' }))),
    );
    expect(results.map((r) => r!.event.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(results.map((r) => r!.created)).toEqual(Array(10).fill(1));
    // Calls made in the same turn of the event loop go together (see EventFanOut.drain).
    expect(inserts).toEqual([10]);
  });

  it('fails every event of a batch when a write fails, and the repeat fills in what is missing', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    const insertMany = t.deliveries.insertMany.bind(t.deliveries);
    let failures = 1;
    t.deliveries.insertMany = async (ds) => {
      if (failures-- > 0) throw new Error('mongo down');
      return insertMany(ds);
    };
    const first = await Promise.allSettled([t.ingest(paymentEvent('a')), t.ingest(paymentEvent('b'))]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    const again = await t.ingest(paymentEvent('a'));
    expect(again!.created).toBe(1);
    expect(t.deliveries.rows.size).toBe(2);
  });

  it('sends first attempts before storing anything about them, and resolves once their outcomes are stored', async () => {
    const t = setup({ perKeyConcurrency: 2, slotWaitMs: 50 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    t.sender.send = async (input) => {
      t.sender.sent.push(input);
      await hang;
      return { status: 200, success: true, duration_ms: 1, error_class: null, response_excerpt: '' };
    };
    const claims = jest.spyOn(t.deliveries, 'claim');
    t.worker.start();
    await new Promise((r) => setTimeout(r, 30)); // the idle worker's first poll
    claims.mockClear();
    let resolved = 0;
    const ingests = [1, 2, 3].map((i) =>
      t.ingest(paymentEvent(`s${i}`, { charge_id: `c${i}` })).then((r) => (resolved++, r)),
    );
    // Two (the key's cap) are being sent and nothing about them is stored yet; the third found no
    // slot within slotWaitMs and was stored as due work (pending, unattempted), which the full key
    // keeps the claim loop from handing out.
    await until(() => t.sender.sent.length === 2 && t.deliveries.rows.size === 1);
    expect([...t.deliveries.rows.values()].map((d) => [d.status, d.attempt_count])).toEqual([['pending', 0]]);
    expect(resolved).toBe(1);
    for (const r of claims.mock.results) expect(await r.value).toEqual([]);
    release();
    expect((await Promise.all(ingests)).map((r) => r!.created)).toEqual([1, 1, 1]);
    await until(
      () => t.deliveries.rows.size === 3 && [...t.deliveries.rows.values()].every((d) => d.status === 'succeeded'),
    );
    await t.worker.stop();
    expect(t.sender.sent).toHaveLength(3);
    expect([...t.deliveries.rows.values()].map((d) => d.attempts.map((a) => a.number))).toEqual([[1], [1], [1]]);
  });

  it("gives a key's slot back once its receiver has answered, not once the outcome is written", async () => {
    const t = setup({ perKeyConcurrency: 1, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    let storeOutcomes!: () => void;
    const writesHeld = new Promise<void>((r) => (storeOutcomes = r));
    const recordFirst = t.deliveries.recordFirst.bind(t.deliveries);
    t.deliveries.recordFirst = async (d) => {
      await writesHeld;
      return recordFirst(d);
    };
    const insertMany = jest.spyOn(t.deliveries, 'insertMany');
    t.worker.start();
    const ingests = [1, 2].map((i) => t.ingest(paymentEvent(`w${i}`, { charge_id: `c${i}` })));
    // With a cap of 1 and no outcome written yet, the second was sent well within its slot wait: the
    // first's answer freed the slot, though the store still holds neither.
    await until(() => t.sender.sent.length === 2, 1_000);
    expect(t.deliveries.rows.size).toBe(0);
    storeOutcomes();
    expect((await Promise.all(ingests)).map((r) => r!.created)).toEqual([1, 1]);
    await t.worker.stop();
    expect(insertMany).not.toHaveBeenCalled(); // neither waited long enough to become due work
    expect([...t.deliveries.rows.values()].map((d) => [d.status, d.attempt_count])).toEqual(
      Array(2).fill(['succeeded', 1]),
    );
  });

  it('a first attempt waits briefly for its key to have a slot instead of becoming due work', async () => {
    const t = setup({ perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    const insertMany = jest.spyOn(t.deliveries, 'insertMany');
    t.worker.start();
    // Two sending, two waiting (up to the key's cap of waiters).
    await Promise.all([1, 2, 3, 4].map((i) => t.ingest(paymentEvent(`s${i}`, { charge_id: `c${i}` }))));
    await t.worker.stop();
    expect(insertMany).not.toHaveBeenCalled(); // every one went the fast way
    expect([...t.deliveries.rows.values()].map((d) => [d.status, d.attempt_count])).toEqual(
      Array(4).fill(['succeeded', 1]),
    );
  });

  it('a burst for one key waits for its slots instead of becoming due work, up to the pool', async () => {
    const t = setup({ concurrency: 8, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    const insertMany = jest.spyOn(t.deliveries, 'insertMany');
    t.worker.start();
    // Two are sent and eight wait (the pool's size, well beyond the key's cap of 2); two go the slow way.
    await Promise.all(Array.from({ length: 12 }, (_, i) => t.ingest(paymentEvent(`b${i}`, { charge_id: `b${i}` }))));
    await until(
      () => t.deliveries.rows.size === 12 && [...t.deliveries.rows.values()].every((d) => d.status === 'succeeded'),
    );
    await t.worker.stop();
    expect(insertMany).toHaveBeenCalledTimes(2);
    expect(t.sender.sent).toHaveLength(12);
    const count = (path: string) => t.firstAttempts.filter((p) => p === path).length;
    expect([count('at_once'), count('after_wait'), count('stored')]).toEqual([2, 8, 2]);
  });

  it('a key whose sends time out gets only its cap of waiters, also right after a timeout freed a slot', async () => {
    const t = setup({ concurrency: 8, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k', webhook_url: 'http://127.0.0.1:1/slow' });
    let timingOut = true;
    t.sender.send = async (input) => {
      t.sender.sent.push(input);
      if (!timingOut) return { status: 200, success: true, duration_ms: 1, error_class: null, response_excerpt: '' };
      await new Promise((r) => setTimeout(r, 400));
      return { status: null, success: false, duration_ms: 400, error_class: 'timeout', response_excerpt: '' };
    };
    t.worker.start();
    // Two sending and two waiting from the start of the spell; at 400 ms the two sends time out and the
    // waiting two take their slots, so the key never stops being busy.
    const early = [0, 1, 2, 3].map((i) => t.ingest(paymentEvent(`t${i}`, { charge_id: `t${i}` })));
    await until(() => t.sender.sent.length === 4, 1_000);
    const stored = () => t.firstAttempts.filter((p) => p === 'stored').length;
    const storedBefore = stored();
    // Just after the timeouts: no response in the spell, so only the cap (2) may wait; two are stored.
    const later = [4, 5, 6, 7].map((i) => t.ingest(paymentEvent(`t${i}`, { charge_id: `t${i}` })));
    await until(() => stored() - storedBefore === 2, 300);
    timingOut = false;
    await Promise.all([...early, ...later]);
    await t.worker.stop();
  });

  it("lets as many wait as the key's response rate so far in its busy spell serves within a slot wait", async () => {
    const t = setup({ concurrency: 16, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    t.sender.send = async (input) => {
      t.sender.sent.push(input);
      await new Promise((r) => setTimeout(r, 100)); // 2 slots: about 20 responses per second
      return { status: 200, success: true, duration_ms: 100, error_class: null, response_excerpt: '' };
    };
    t.worker.start();
    const first = Array.from({ length: 10 }, (_, i) => t.ingest(paymentEvent(`r${i}`, { charge_id: `r${i}` })));
    await new Promise((r) => setTimeout(r, 350)); // past the spell's first 250 ms, about 6 responses in
    // 6 responses in 350 ms is ~34 per 2 s slot wait: all twelve more may wait (only 6 if the count were
    // not scaled to the spell), and each gets its slot within the wait.
    const later = Array.from({ length: 12 }, (_, i) => t.ingest(paymentEvent(`s${i}`, { charge_id: `s${i}` })));
    await Promise.all([...first, ...later]);
    await t.worker.stop();
    expect(t.firstAttempts.filter((p) => p === 'stored')).toEqual([]);
    expect(t.sender.sent).toHaveLength(22);
  });

  it('claims no more than the pool while outcomes wait to be written', async () => {
    const t = setup({ concurrency: 3, perKeyConcurrency: 3 });
    t.keys.add({ key_id: 'k' });
    for (let i = 0; i < 8; i++) await t.ingest(paymentEvent(`q${i}`, { charge_id: `q${i}` }));
    let writeOutcomes!: () => void;
    const held = new Promise<void>((r) => (writeOutcomes = r));
    const complete = t.deliveries.complete.bind(t.deliveries);
    t.deliveries.complete = async (...args) => {
      await held;
      return complete(...args);
    };
    t.worker.start();
    await until(() => t.sender.sent.length === 3);
    await new Promise((r) => setTimeout(r, 100)); // several polls: the receiver is idle, the writes are not
    expect(t.sender.sent).toHaveLength(3);
    writeOutcomes();
    await until(() => t.sender.sent.length === 8);
    await until(() => [...t.deliveries.rows.values()].every((d) => d.status === 'succeeded'));
    await t.worker.stop();
  });

  it('a key whose receiver stopped answering gets only its cap of waiters; the rest become due work at once', async () => {
    const t = setup({ concurrency: 8, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    const { release } = hangingAndFastReceivers(t);
    t.worker.start();
    const first = [0, 1].map((i) => t.ingest(paymentEvent(`h${i}`, { charge_id: `h${i}` })));
    await until(() => t.sender.sent.length === 2);
    await new Promise((r) => setTimeout(r, 300)); // full, and nothing answered: stuck
    const started = Date.now();
    const later = [2, 3, 4, 5].map((i) => t.ingest(paymentEvent(`h${i}`, { charge_id: `h${i}` })));
    // Two wait (the cap); two are stored as due work without waiting out the 2 s.
    await until(() => t.deliveries.rows.size === 2, 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    release();
    await Promise.all([...first, ...later]);
    await until(() => t.sender.sent.length === 6);
    await t.worker.stop();
  });

  it('a hanging receiver holds its cap and its waiters spill to due work; another merchant is not held up', async () => {
    const t = setup({ concurrency: 4, perKeyConcurrency: 2, slotWaitMs: 50 }, { handOff: true });
    const { release, maxSlow } = hangingAndFastReceivers(t);
    t.worker.start();
    const slow = Array.from({ length: 6 }, (_, i) => t.ingest(paymentEvent(`slow${i}`, { charge_id: `c${i}` })));
    const fast = await Promise.all(
      Array.from({ length: 3 }, (_, i) => t.ingest(paymentEvent(`fast${i}`, { merchant_id: 2, charge_id: `f${i}` }))),
    );
    expect(fast.map((r) => r!.created)).toEqual([1, 1, 1]);
    expect(maxSlow()).toBe(2);
    // The four slow ones beyond the cap were stored as due work within slotWaitMs.
    await until(() => [...t.deliveries.rows.values()].filter((d) => d.key_id === 'slow').length === 4);
    release();
    await Promise.all(slow);
    await until(() => t.sender.sent.length === 9);
    await t.worker.stop();
    expect(maxSlow()).toBe(2);
  });

  it('a repeat of a message whose first attempt was sent but not stored records it as interrupted and sends attempt 2', async () => {
    const t = setup({}, { handOff: true });
    t.keys.add({ key_id: 'k' });
    const recordFirst = t.deliveries.recordFirst.bind(t.deliveries);
    let failures = 1;
    t.deliveries.recordFirst = async (d) => {
      if (failures-- > 0) throw new Error('mongo down'); // or a kill -9 right after the send
      return recordFirst(d);
    };
    t.worker.start();
    await expect(t.ingest(paymentEvent('src_1'), 7)).rejects.toThrow('mongo down');
    expect(t.sender.sent).toHaveLength(1);
    expect(t.deliveries.rows.size).toBe(0);
    const again = await t.ingest(paymentEvent('src_1'), 7); // JetStream redelivers it
    expect(again!.created).toBe(1);
    const d = await onlyDeliveryOnceSucceeded(t);
    expect(d.attempts.map((a) => [a.number, a.error_class])).toEqual([
      [1, 'interrupted'],
      [2, null],
    ]);
    expect(d.round_attempts).toBe(1); // the interrupted one does not spend the round
    expect(t.sender.sent).toHaveLength(2);
    expect(new Set(t.sender.sent.map((s) => s.headers['x-service-event-id'])).size).toBe(1);
  });

  it('a retry due for a busy key is not starved by new events that keep it busy', async () => {
    const t = setup({ perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    const sends: { charge: string; at: number }[] = [];
    t.sender.send = async (input) => {
      t.sender.sent.push(input);
      const charge = JSON.parse(input.body).data.charge_id as string;
      sends.push({ charge, at: Date.now() });
      if (charge === 'A' && sends.length === 1) {
        return { status: 500, success: false, duration_ms: 1, error_class: 'http_error', response_excerpt: '' };
      }
      await new Promise((r) => setTimeout(r, 20));
      return { status: 200, success: true, duration_ms: 20, error_class: null, response_excerpt: '' };
    };
    t.worker.start();
    const ingests = [t.ingest(paymentEvent('a', { charge_id: 'A' }))];
    // New events for the same key every 5 ms for 400 ms: its 2 slots and 2 waiters never run dry.
    for (let i = 0; i < 80; i++) {
      ingests.push(t.ingest(paymentEvent(`e${i}`, { charge_id: `E${i}` })));
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(ingests);
    await until(() => sends.filter((s) => s.charge === 'A').length === 2, 5_000);
    await t.worker.stop();
    const [first, retry] = sends.filter((s) => s.charge === 'A');
    // Due 30 ms after the failure (retryDelayMs in this setup); sent at the next free slot, long before
    // the stream of new events ends.
    expect(retry!.at - first!.at).toBeLessThan(150);
  });

  it('a retry another replica claimed first is left to it, and its slot is given back', async () => {
    const t = setup({ perKeyConcurrency: 1, slotWaitMs: 50 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    t.sender.answer = (input) =>
      JSON.parse(input.body).data.charge_id === 'A'
        ? { status: 500, error_class: 'http_error' }
        : { status: 200, success: true };
    t.worker.start();
    await t.ingest(paymentEvent('a', { charge_id: 'A' }));
    // Another replica's claim loop takes A's retry (due in 30 ms) before this worker's timer fires.
    const other = await t.deliveries.claim({
      now: new Date(Date.now() + 1_000),
      owner: 'other',
      leaseUntil: new Date(Date.now() + 60_000),
      limit: 10,
      keyRoom: new Map(),
      perKeyLimit: 8,
    });
    expect(other.map((c) => c.delivery.attempt_count)).toEqual([2]);
    await new Promise((r) => setTimeout(r, 100)); // the timer fired, the claim by id found nothing
    await t.ingest(paymentEvent('b', { charge_id: 'B' })); // the key's only slot is free again
    await t.worker.stop();
    expect(t.sender.sent.map((s) => JSON.parse(s.body).data.charge_id)).toEqual(['A', 'B']);
    expect([...t.deliveries.rows.values()].find((d) => d.attempts[0]?.status === 200)?.status).toBe('succeeded');
  });

  it('a resend while a first attempt is in flight stores it as interrupted, so both sends show', async () => {
    const t = setup({}, { handOff: true });
    t.keys.add({ key_id: 'k' });
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    let calls = 0;
    t.sender.send = async (input) => {
      t.sender.sent.push(input);
      if (calls++ === 0) await hang;
      return { status: 200, success: true, duration_ms: 1, error_class: null, response_excerpt: '' };
    };
    t.worker.start();
    const first = t.ingest(paymentEvent('src_1'));
    await until(() => t.sender.sent.length === 1);
    const eventId = webhookEventId('src_1', 1);
    await t.log.resend(1, 'sandbox', eventId); // the partner sees no delivery yet and resends
    await until(() => t.sender.sent.length === 2);
    release();
    await first;
    const d = await onlyDeliveryOnceSucceeded(t);
    expect(d.attempts.map((a) => [a.number, a.error_class])).toEqual([
      [1, 'interrupted'],
      [2, null],
    ]);
  });

  it('sends nothing again for a repeat of a message whose deliveries are stored', async () => {
    const t = setup({}, { handOff: true });
    t.keys.add({ key_id: 'k' });
    t.worker.start();
    await t.ingest(paymentEvent('src_1'), 3);
    const again = await t.ingest(paymentEvent('src_1'), 3);
    await new Promise((r) => setTimeout(r, 50));
    await t.worker.stop();
    expect(again!.created).toBe(0);
    expect(t.sender.sent).toHaveLength(1);
  });
});

describe('EventLog', () => {
  it('lists newest first with cursor paging, filters, and scopes to merchant and mode', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    for (let i = 0; i < 5; i++) {
      await t.ingest(paymentEvent(`s${i}`, { charge_id: `c${i}`, completed_at: `2026-05-01T10:00:0${i}.000Z` }));
    }
    await t.ingest(paymentEvent('live', {}, 'live'));
    const p1 = await t.log.list(1, 'sandbox', { limit: 2 });
    expect(p1.events.map((e) => e.object_id)).toEqual(['c4', 'c3']);
    expect(p1.has_more).toBe(true);
    const p2 = await t.log.list(1, 'sandbox', { limit: 2, cursor: p1.next_cursor! });
    expect(p2.events.map((e) => e.object_id)).toEqual(['c2', 'c1']);
    const p3 = await t.log.list(1, 'sandbox', { limit: 2, cursor: p2.next_cursor! });
    expect(p3).toMatchObject({ has_more: false, next_cursor: null });
    expect(p3.events.map((e) => e.object_id)).toEqual(['c0']);
    expect((await t.log.list(1, 'sandbox', { delivery_status: 'pending' })).events).toHaveLength(5);
    expect((await t.log.list(1, 'sandbox', { types: ['payment.failed'] })).events).toHaveLength(0);
    expect((await t.log.list(2, 'sandbox', {})).events).toHaveLength(0);
    await expect(t.log.list(1, 'sandbox', { cursor: 'nonsense' })).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    const live = (await t.log.list(1, 'live', {})).events;
    expect(live).toHaveLength(1);
    await expect(t.log.get(1, 'sandbox', live[0]!.event_id)).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });

  it('recover resends failed deliveries in the window (dry run counts only)', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('s1'));
    for (const d of t.deliveries.rows.values()) d.status = 'failed';
    const since = new Date(Date.now() - 60_000);
    expect(await t.log.recover(1, 'sandbox', { since, dry_run: true })).toEqual({ count: 1, dry_run: true });
    expect([...t.deliveries.rows.values()][0]!.status).toBe('failed');
    expect(await t.log.recover(1, 'sandbox', { since })).toEqual({ count: 1, dry_run: false });
    expect([...t.deliveries.rows.values()][0]!.status).toBe('pending');
    await expect(t.log.recover(1, 'sandbox', { since: new Date(), until: since })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('purges events and deliveries older than 30 days', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('s1'));
    for (const e of t.events.events.values()) e.created_at = new Date(Date.now() - 31 * 86_400_000);
    for (const d of t.deliveries.rows.values()) d.created_at = new Date(Date.now() - 31 * 86_400_000);
    await t.ingest(paymentEvent('s2', { charge_id: 'c2' }));
    expect(await t.log.purgeExpired()).toBe(2);
    expect(t.events.events.size).toBe(1);
  });

  it('pings a key with a signed ping and reports the answer', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    t.keys.add({ key_id: 'k_none', webhook_url: null });
    t.sender.answer = () => ({ status: 200, success: true, duration_ms: 12 });
    const res = await t.log.ping(1, 'k');
    expect(res.result).toMatchObject({ status: 200, success: true, duration_ms: 12 });
    expect(JSON.parse(t.sender.sent[0]!.body)).toMatchObject({ event_type: 'ping', event_id: res.event_id });
    await expect(t.log.ping(2, 'k')).rejects.toMatchObject({ code: 'API_KEY_NOT_FOUND' });
    await expect(t.log.ping(1, 'k_none')).rejects.toMatchObject({ code: 'WEBHOOK_URL_NOT_SET' });
  });
});
