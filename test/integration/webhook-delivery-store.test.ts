import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { MAX_ATTEMPTS_PER_DELIVERY, newDelivery } from '../../services/webhooks/src/deliveries/delivery';
import { MongoDeliveryStore } from '../../services/webhooks/src/deliveries/delivery.repo';
import { deliveryModels } from '../../services/webhooks/src/deliveries/delivery-documents.repo';
import { ensureDueEntries } from '../../services/webhooks/src/deliveries/due-migration.repo';
import { dropSequenceCounters } from '../../services/webhooks/src/webhook-events/event.repo';
import type { WebhookEventRecord } from '../../services/webhooks/src/webhook-events/webhook-event';
import { testInfraUrls } from '../support/infra';

/**
 * The boot migration (`ensureDueEntries`) gives deliveries written before `webhook_due` existed their
 * due entry. It runs while other replicas deliver: a log document this version wrote shows `pending`
 * until its outcome is written, so a stale read of one a replica just finished must not bring it back
 * (that sent it a second time, with its attempt number repeated).
 */
describe('webhook delivery store: due work rebuilt from the log never resends or renumbers', () => {
  let conn: Connection;
  let store: MongoDeliveryStore;
  let models: ReturnType<typeof deliveryModels>;
  let seq = 0;

  const event = (): WebhookEventRecord => ({
    event_id: `evt_${randomBytes(8).toString('hex')}`,
    event_type: 'payment.succeeded',
    merchant_id: 4242,
    mode: 'sandbox',
    occurred_at: new Date(),
    object_type: 'charge',
    object_id: `ch_${++seq}`,
    sequence: 1,
    data: {},
    source_event_id: `src_${seq}`,
    created_at: new Date(),
  });

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(testInfraUrls().mongoUri, { dbName: `p${randomBytes(3).toString('hex')}_wh_store` })
      .asPromise();
    models = deliveryModels(conn);
    await Promise.all([models.deliveries.init(), models.due.init()]);
    store = new MongoDeliveryStore(models.deliveries, models.due);
  });
  afterAll(async () => {
    await conn?.dropDatabase();
    await conn?.close();
  });

  it('does not recreate the entry of a delivery whose log still reads pending when it ran', async () => {
    const d = newDelivery(event(), 'key_a', new Date());
    expect([...(await store.insertMany([d]))]).toEqual([d.delivery_id]);
    // What a migration reading just before a replica's completion sees: the log says pending, and by
    // the time it inserts, the entry is gone (the replica deleted it when the delivery succeeded).
    await models.due.deleteOne({ _id: d.delivery_id });

    expect(await ensureDueEntries(models)).toBe(0);
    expect(await models.due.countDocuments({ _id: d.delivery_id })).toBe(0);
  });

  it('still queues an unfinished delivery an older version wrote, with its counters as stored', async () => {
    const d = newDelivery(event(), 'key_b', new Date());
    const { delivery_id, ...legacy } = d;
    await models.deliveries.collection.insertOne({
      ...legacy,
      _id: delivery_id,
      attempt_count: 2,
      round_attempts: 2,
    } as never);

    expect(await ensureDueEntries(models)).toBe(1);
    const due = await models.due.findById(delivery_id).lean();
    expect([due?.status, due?.attempt_count, due?.round_attempts]).toEqual(['pending', 2, 2]);
    // Idempotent: a second boot adds nothing.
    expect(await ensureDueEntries(models)).toBe(0);
  });

  it('a resend schedules a legacy delivery in webhook_due from then on', async () => {
    const d = newDelivery(event(), 'key_c', new Date());
    const { delivery_id, ...legacy } = d;
    await models.deliveries.collection.insertOne({ ...legacy, _id: delivery_id, status: 'failed' } as never);

    const requeued = await store.requeue(
      { merchant_id: 4242, mode: 'sandbox', statuses: ['failed'], event_id: d.event_id },
      new Date(),
    );
    expect(requeued).toBe(1);
    await models.due.deleteOne({ _id: delivery_id });
    expect(await ensureDueEntries(models)).toBe(0);
  });

  it('a resend leaves a delivery that made every attempt it may (Hardening 2 item 2)', async () => {
    const e = event();
    const spent = { ...newDelivery(e, 'key_d', new Date()), status: 'failed' as const };
    await store.insertMany([{ ...spent, attempt_count: MAX_ATTEMPTS_PER_DELIVERY }]);
    await store.insertMany([{ ...spent, delivery_id: `${spent.delivery_id}x`, key_id: 'key_e', attempt_count: 3 }]);
    const filter = { merchant_id: 4242, mode: 'sandbox' as const, statuses: ['failed' as const], event_id: e.event_id };
    expect(await store.count({ ...filter, attempts_below: MAX_ATTEMPTS_PER_DELIVERY })).toBe(1);
    expect(await store.requeue({ ...filter, attempts_below: MAX_ATTEMPTS_PER_DELIVERY }, new Date())).toBe(1);
    expect((await models.deliveries.findById(spent.delivery_id).lean())?.status).toBe('failed');
  });

  const claimNow = () =>
    store.claim({
      now: new Date(),
      owner: 'w_test',
      leaseUntil: new Date(Date.now() + 20_000),
      limit: 100,
      keyRoom: new Map(),
      perKeyLimit: 8,
      merchantRoom: new Map(),
      perMerchantLimit: 64,
    });

  it('a repeat rebuilds due work from the log; a claim of it checks the log first (stale reads)', async () => {
    // A delivery with one failed attempt, pending in the log, whose due entry a crash lost.
    const d = { ...newDelivery(event(), 'key_d', new Date()), attempt_count: 1, round_attempts: 1 };
    expect(await store.recordFirst(d)).toBe(true);
    await models.due.deleteOne({ _id: d.delivery_id }); // the crash, between the log and the due insert
    expect([...(await store.insertMany([d]))]).toEqual([d.delivery_id]); // the repeat rebuilds the entry
    const rebuilt = await models.due.findById(d.delivery_id).lean();
    expect([rebuilt?.rebuilt, rebuilt?.attempt_count]).toEqual([true, 1]);

    // By the time of the claim another replica made attempt 2 and 3 (the log moved on): numbers continue.
    await models.deliveries.updateOne({ _id: d.delivery_id }, { $set: { attempt_count: 3 } });
    const [claimed] = (await claimNow()).filter((c) => c.delivery.delivery_id === d.delivery_id);
    expect(claimed?.delivery.attempt_count).toBe(4);
    expect((await models.due.findById(d.delivery_id).lean())?.attempt_count).toBe(4);

    // And once the log says succeeded, a rebuilt entry is closed without being handed out.
    await models.due.updateOne(
      { _id: d.delivery_id },
      { $set: { status: 'pending', next_attempt_at: new Date(0), claim_token: null } },
    );
    await models.deliveries.updateOne({ _id: d.delivery_id }, { $set: { status: 'succeeded' } });
    expect((await claimNow()).filter((c) => c.delivery.delivery_id === d.delivery_id)).toEqual([]);
    expect(await models.due.countDocuments({ _id: d.delivery_id })).toBe(0);
  });

  it('drops the per-object counters of the previous version at boot, once', async () => {
    await conn.collection('webhook_sequences').insertOne({ _id: 'sandbox:charge:ch_1', value: 3 } as never);
    expect(await dropSequenceCounters(conn)).toBe(true);
    expect(await conn.db!.listCollections({ name: 'webhook_sequences' }).toArray()).toEqual([]);
    expect(await dropSequenceCounters(conn)).toBe(false);
  });
});
