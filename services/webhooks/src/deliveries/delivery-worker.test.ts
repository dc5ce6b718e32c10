import { createHmac } from 'node:crypto';
import { memoryPorts, pingEvent } from '../memory-ports.test-util';
import { MAX_ATTEMPTS_PER_DELIVERY } from './delivery';
import { SPEC_POLICY } from './delivery-policy';
import { DeliveryWorker } from './delivery-worker';
import { FakeClock, settled } from './fake-clock.test-util';
import { hangingAndFastReceivers, paymentEvent, setup, until } from '../memory-world.test-util';

/** A key of merchant 1 as the send slots see it. */
const k = (keyId: string) => ({ keyId, merchantId: 1 });

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

  it('makes at most MAX_ATTEMPTS_PER_DELIVERY attempts: resends stop with a 409, recovery skips it (Hardening 2 item 2)', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    t.sender.answer = () => ({ status: 500, error_class: 'http_error' });
    const { event } = (await t.ingest(paymentEvent('src_1')))!;
    const delivery = () => [...t.deliveries.rows.values()][0]!;
    t.worker.start();
    const rounds = MAX_ATTEMPTS_PER_DELIVERY / 3;
    // Each resend an hour after the last (the hourly resend quota, H2-3, is not what is tested here).
    const anHourLater = () => t.events.resends.delete(event.event_id);
    for (let round = 1; round <= rounds; round++) {
      await until(() => delivery().status === 'failed' && delivery().attempt_count === round * 3);
      anHourLater();
      if (round < rounds) await t.log.resend(1, 'sandbox', event.event_id);
    }
    const limit = await t.log.resend(1, 'sandbox', event.event_id).catch((e: unknown) => e);
    expect(limit).toMatchObject({ code: 'WEBHOOK_ATTEMPT_LIMIT_REACHED', param: 'event_id' });
    // Refused before the quota was spent.
    expect(t.events.resends.has(event.event_id)).toBe(false);
    expect(await t.log.recover(1, 'sandbox', { since: new Date(0) })).toEqual({ count: 0, dry_run: false });
    await new Promise((r) => setTimeout(r, 50));
    await t.worker.stop();
    expect(t.sender.sent).toHaveLength(MAX_ATTEMPTS_PER_DELIVERY);
    expect(delivery().attempts.map((a) => a.number)).toEqual(
      Array.from({ length: MAX_ATTEMPTS_PER_DELIVERY }, (_, i) => i + 1),
    );
  });

  it('a claim past the bound sends nothing, however it got there (a crash loop of interrupted attempts)', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('src_1'));
    const d = [...t.deliveries.rows.values()][0]!;
    // A worker died while sending the last attempt it may make: its claim has expired.
    Object.assign(d, {
      status: 'delivering',
      attempt_count: MAX_ATTEMPTS_PER_DELIVERY,
      round_attempts: 1,
      claimed_at: new Date(Date.now() - 60_000),
      next_attempt_at: new Date(Date.now() - 1),
    });
    const before = d.attempts.length;
    t.worker.start();
    await until(() => [...t.deliveries.rows.values()][0]!.status === 'failed');
    await t.worker.stop();
    const after = [...t.deliveries.rows.values()][0]!;
    expect(after.last_error_class).toBe('attempt_limit');
    expect(after.attempts.slice(before).map((a) => [a.number, a.error_class])).toEqual([
      [MAX_ATTEMPTS_PER_DELIVERY, 'interrupted'],
    ]);
    expect(t.sender.sent).toHaveLength(0); // nothing past the bound
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
      merchantRoom: new Map(),
      perMerchantLimit: 64,
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
      merchantRoom: new Map(),
      perMerchantLimit: 64,
    });
    expect(other.map((c) => c.delivery.attempt_count)).toEqual([2]);
    await new Promise((r) => setTimeout(r, 100)); // the timer fired, the claim by id found nothing
    await t.ingest(paymentEvent('b', { charge_id: 'B' })); // the key's only slot is free again
    await t.worker.stop();
    expect(t.sender.sent.map((s) => JSON.parse(s.body).data.charge_id)).toEqual(['A', 'B']);
    expect([...t.deliveries.rows.values()].find((d) => d.attempts[0]?.status === 200)?.status).toBe('succeeded');
  });
});

describe('DeliveryWorker on a fake clock', () => {
  /** One key with one send slot; each receiver answers when the test says so (`answer(id, status)`). */
  function worker() {
    const clock = new FakeClock();
    const { deliveries, events, keys, sender } = memoryPorts();
    const key = keys.add({ key_id: 'k' });
    const waiting = new Map<string, (status: number) => void>();
    sender.send = async (input) => {
      sender.sent.push(input);
      const id = (JSON.parse(input.body) as { data: { n: string } }).data.n;
      const status = await new Promise<number>((r) => waiting.set(id, r));
      return {
        status,
        success: status < 300,
        duration_ms: 1,
        error_class: status < 300 ? null : 'http_error',
        response_excerpt: '',
      };
    };
    const w = new DeliveryWorker(
      { deliveries, events, keys, sender },
      {
        ...SPEC_POLICY,
        concurrency: 8,
        perKeyConcurrency: 1,
        slotWaitMs: 5_000,
        leaseMs: 60_000,
        pollIntervalMs: 60_000,
        allowPrivateTargets: true,
      },
      clock,
    );
    const sentIds = () => sender.sent.map((s) => (JSON.parse(s.body) as { data: { n: string } }).data.n);
    const answer = async (id: string, status: number) => {
      waiting.get(id)!(status);
      await settled();
    };
    return { clock, deliveries, events, key, w, sentIds, answer };
  }

  it('gives a freed slot to a due retry before a first attempt waiting for it', async () => {
    const t = worker();
    t.w.start();
    await settled();
    const a = pingEvent('A');
    await t.events.insert(a);
    expect(await t.w.acquire(k('k'))).toBe(true);
    const firstA = t.w.sendFirst(a, t.key);
    await settled();
    await t.answer('A', 500); // recorded pending: a retry 2 s later
    await firstA;
    expect(await t.w.acquire(k('k'))).toBe(true);
    const firstB = t.w.sendFirst(pingEvent('B'), t.key);
    let cGranted: boolean | undefined;
    const cSlot = t.w.acquire(k('k')).then((granted) => (cGranted = granted));
    await t.clock.advance(2_005); // A's retry is due; B still holds the key's only slot
    expect(t.sentIds()).toEqual(['A', 'B']);
    await t.answer('B', 200);
    expect([t.sentIds(), cGranted]).toEqual([['A', 'B', 'A'], undefined]);
    await t.answer('A', 200);
    await cSlot;
    expect(cGranted).toBe(true);
    await firstB;
    const sendC = t.w.sendFirst(pingEvent('C'), t.key);
    await settled();
    await t.answer('C', 200);
    await sendC;
    await t.w.stop();
    expect(t.sentIds()).toEqual(['A', 'B', 'A', 'C']);
    expect([...t.deliveries.rows.values()].map((d) => [d.event_id, d.status, d.attempt_count])).toEqual([
      ['evt_A', 'succeeded', 2],
      ['evt_B', 'succeeded', 1],
      ['evt_C', 'succeeded', 1],
    ]);
  });

  it('stop denies first attempts waiting for a slot and waits for the sends in flight', async () => {
    const t = worker();
    t.w.start();
    expect(await t.w.acquire(k('k'))).toBe(true);
    const sending = t.w.sendFirst(pingEvent('A'), t.key);
    const waiting = t.w.acquire(k('k'));
    let stopped = false;
    const stop = t.w.stop().then(() => (stopped = true));
    expect(await waiting).toBe(false);
    await settled();
    expect(stopped).toBe(false);
    await t.answer('A', 200);
    await Promise.all([sending, stop]);
    expect(stopped).toBe(true);
    expect(await t.w.acquire(k('k'))).toBe(false);
  });
});
