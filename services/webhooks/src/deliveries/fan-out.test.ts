import type { EventEnvelope } from '@ppay/kernel';
import { webhookEventId } from '../webhook-events/webhook-event';
import { onlyDeliveryOnceSucceeded, paymentEvent, setup, until } from '../memory-world.test-util';

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

  it('gives one event at most 20 deliveries: keys added since a resend fill only the room left', async () => {
    const t = setup();
    for (let i = 0; i < 15; i++) t.keys.add({ key_id: `k${String(i).padStart(2, '0')}` });
    const { event } = (await t.ingest(paymentEvent('src_1')))!;
    for (const d of t.deliveries.rows.values()) d.status = 'failed';
    for (let i = 15; i < 30; i++) t.keys.add({ key_id: `k${i}` });
    await t.log.resend(1, 'sandbox', event.event_id);
    const keys = [...t.deliveries.rows.values()].map((d) => d.key_id);
    expect(keys).toHaveLength(20);
    expect(new Set(keys).size).toBe(20);
    await t.log.resend(1, 'sandbox', event.event_id);
    expect(t.deliveries.rows.size).toBe(20);
  });
});
