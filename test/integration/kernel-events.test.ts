import mongoose, { Schema, type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { newEventId, outboxEvent, SUBJECTS, type EventEnvelope } from '@ppay/kernel';
import {
  connectNats,
  createLogger,
  defineConsumer,
  ensureIndexes,
  ensureStream,
  isDuplicateKeyError,
  nextSequence,
  OutboxRelay,
  outboxEntrySchema,
  PlatformMetrics,
  publishEvent,
  runDurableConsumer,
  type NatsContext,
} from '@ppay/runtime';
import { eventually } from '../support/platform';
import { testInfraUrls } from '../support/infra';

/** The kernel's event plumbing against the real NATS JetStream and MongoDB-wire servers. */
describe('kernel: JetStream publishing, durable consumers and the outbox relay', () => {
  const log = createLogger('kernel-test', 'silent');
  let nats: NatsContext;
  let conn: Connection;

  beforeAll(async () => {
    const { mongoUri, natsUrl } = testInfraUrls();
    nats = await connectNats(natsUrl, 'kernel-test', log);
    await ensureStream(nats.jsm, 'APIKEYS');
    await ensureStream(nats.jsm, 'APIKEYS'); // idempotent
    conn = await mongoose
      .createConnection(mongoUri, { dbName: `k${randomBytes(3).toString('hex')}_kernel` })
      .asPromise();
  });
  afterAll(async () => {
    await nats?.nc.drain();
    await conn?.close();
  });

  const envelope = (keyId: string): EventEnvelope => ({
    event_id: newEventId(),
    subject: SUBJECTS.apiKeyCreated,
    occurred_at: new Date().toISOString(),
    merchant_id: 1,
    mode: 'sandbox',
    data: { key_id: keyId, merchant_id: 1, mode: 'sandbox', status: 'active', api_version: '2026-03-27' },
  });

  it('drops a re-published event id inside the duplicate window (Nats-Msg-Id)', async () => {
    const event = envelope('key_dup');
    const first = await publishEvent(nats, event);
    const second = await publishEvent(nats, event);
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);
  });

  it('a durable consumer retries a failed message and sees each event once it succeeds', async () => {
    const metrics = new PlatformMetrics('kernel-test');
    const seen: string[] = [];
    let failures = 0;
    const marker = `key_${randomBytes(4).toString('hex')}`;
    const consumer = await runDurableConsumer(
      nats,
      defineConsumer({
        stream: 'APIKEYS',
        durable: `test_${randomBytes(4).toString('hex')}`,
        subjects: [SUBJECTS.apiKeyCreated],
        async handle(event) {
          const keyId = event.data.key_id;
          if (!keyId.startsWith(marker)) return;
          if (keyId === `${marker}_flaky` && failures++ === 0) throw new Error('transient');
          seen.push(keyId);
        },
      }),
      log,
      metrics,
    );
    await publishEvent(nats, envelope(`${marker}_a`));
    await publishEvent(nats, envelope(`${marker}_flaky`));
    expect(await eventually(async () => seen.length === 2, 10_000)).toBe(true);
    expect(seen.sort()).toEqual([`${marker}_a`, `${marker}_flaky`]);
    expect(failures).toBe(2);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/ppay_nats_consumed_total\{[^}]*outcome="nak"[^}]*\} 1/);
    expect(text).toMatch(/ppay_nats_redeliveries_total\{[^}]*\} 1/);
    await consumer.stop();
  });

  it('the outbox relay publishes events written with the aggregate and removes them', async () => {
    const Thing = conn.model(
      'Thing',
      new Schema(
        { _id: String, name: String, outbox: { type: [outboxEntrySchema], default: [] } },
        { versionKey: false },
      ),
    );
    const metrics = new PlatformMetrics('kernel-test');
    const relay = new OutboxRelay(Thing, nats, log, metrics, 100);
    const keyId = `key_${randomBytes(4).toString('hex')}`;
    const event = outboxEvent(
      SUBJECTS.apiKeyCreated,
      { key_id: keyId, merchant_id: 7, mode: 'live', status: 'active', api_version: '2026-03-27' },
      { merchantId: 7, mode: 'live' },
    );
    // Written as if a crash happened before the fast path ran: only the sweep can deliver it.
    await Thing.create({ _id: 'thing-1', name: 'x', outbox: [event] });
    const received: EventEnvelope[] = [];
    const watcher = await nats.js.consumers.get('APIKEYS', { filterSubjects: [SUBJECTS.apiKeyCreated] });
    const messages = await watcher.consume();
    void (async () => {
      for await (const m of messages) {
        const e = m.json<EventEnvelope>();
        if ((e.data as { key_id: string }).key_id === keyId) received.push(e);
      }
    })();
    relay.start();
    expect(await eventually(async () => received.length === 1, 10_000)).toBe(true);
    expect(received[0]).toMatchObject({
      event_id: event.event_id,
      merchant_id: 7,
      mode: 'live',
      subject: 'apikeys.created',
    });
    expect(await eventually(async () => ((await Thing.findById('thing-1').lean())?.outbox?.length ?? -1) === 0)).toBe(
      true,
    );
    await relay.stop();
    await messages.close();
  });

  it('a failed fast path is retried by _id on the next pass, without waiting for the full sweep', async () => {
    const Retried = conn.model(
      'Retried',
      new Schema(
        { _id: String, outbox: { type: [outboxEntrySchema], default: [] } },
        { versionKey: false, collection: 'retried' },
      ),
    );
    // NATS refuses publishes until `down` is lifted (as while nats-server restarts).
    let down = true;
    const flaky = {
      ...nats,
      js: new Proxy(nats.js, {
        get: (target, prop, receiver) =>
          prop === 'publish' && down
            ? () => Promise.reject(new Error('nats down'))
            : (Reflect.get(target, prop, receiver) as unknown),
      }),
    } as NatsContext;
    // The full sweep runs once, at start, before the document exists; then only every 10,000 passes.
    const relay = new OutboxRelay(Retried, flaky, log, new PlatformMetrics('kernel-test'), 100, 10_000);
    relay.start();
    const keyId = `key_${randomBytes(4).toString('hex')}`;
    const event = outboxEvent(
      SUBJECTS.apiKeyCreated,
      { key_id: keyId, merchant_id: 8, mode: 'live', status: 'active', api_version: '2026-03-27' },
      { merchantId: 8, mode: 'live' },
    );
    const received: string[] = [];
    const watcher = await nats.js.consumers.get('APIKEYS', { filterSubjects: [SUBJECTS.apiKeyCreated] });
    const messages = await watcher.consume();
    void (async () => {
      for await (const m of messages) {
        const e = m.json<EventEnvelope>();
        if ((e.data as { key_id: string }).key_id === keyId) received.push(e.event_id);
      }
    })();
    await Retried.create({ _id: 'retried-1', outbox: [event] });
    relay.relaySoon('retried-1');
    await new Promise((r) => setTimeout(r, 500));
    expect(received).toEqual([]);
    down = false;
    expect(await eventually(async () => received.length === 1, 5_000)).toBe(true);
    expect(received).toEqual([event.event_id]);
    expect(
      await eventually(async () => ((await Retried.findById('retried-1').lean())?.outbox?.length ?? -1) === 0),
    ).toBe(true);
    await relay.stop();
    await messages.close();
  });

  it('an event that can never be published is dead-lettered and holds back nothing', async () => {
    const Poisoned = conn.model(
      'Poisoned',
      new Schema(
        { _id: String, outbox: { type: [outboxEntrySchema], default: [] } },
        { versionKey: false, collection: 'poisoned' },
      ),
    );
    const metrics = new PlatformMetrics('kernel-test');
    const relay = new OutboxRelay(Poisoned, nats, log, metrics, 100);
    const keyId = (n: number) => `key_${n}_${randomBytes(4).toString('hex')}`;
    const good = (id: string) =>
      outboxEvent(
        SUBJECTS.apiKeyCreated,
        { key_id: id, merchant_id: 9, mode: 'sandbox', status: 'active', api_version: '2026-03-27' },
        { merchantId: 9, mode: 'sandbox' },
      );
    // Larger than the server accepts: built by hand, because outboxEvent refuses it at write time.
    const maxPayload = nats.nc.info!.max_payload;
    const huge = { ...good(keyId(0)), data: { key_id: 'x'.repeat(maxPayload + 1) } };
    expect(() => outboxEvent(SUBJECTS.apiKeyCreated, huge.data as never, { merchantId: 9, mode: 'sandbox' })).toThrow();
    const [first, second, third] = [keyId(1), keyId(2), keyId(3)];
    // The poisoned event sits first in one document, before a good one; another document follows.
    await Poisoned.create({ _id: 'poisoned', outbox: [huge, good(first)] });
    await Poisoned.create({ _id: 'healthy', outbox: [good(second), good(third)] });
    expect(await Poisoned.countDocuments({ outbox_pending_since: { $ne: null } })).toBe(2);

    const seen = new Set<string>();
    const watcher = await nats.js.consumers.get('APIKEYS', { filterSubjects: [SUBJECTS.apiKeyCreated] });
    const messages = await watcher.consume();
    void (async () => {
      for await (const m of messages) seen.add((m.json<EventEnvelope>().data as { key_id: string }).key_id);
    })();
    relay.start();
    expect(await eventually(async () => [first, second, third].every((k) => seen.has(k)), 15_000)).toBe(true);
    expect(await eventually(async () => (await Poisoned.countDocuments({ 'outbox.0': { $exists: true } })) === 0)).toBe(
      true,
    );
    // The pending mark is cleared right after the last event leaves.
    expect(
      await eventually(async () => (await Poisoned.countDocuments({ outbox_pending_since: { $ne: null } })) === 0),
    ).toBe(true);
    const dead = await conn
      .collection('outbox_dead_letters')
      .find({ _id: huge.event_id as never })
      .toArray();
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ source_collection: 'poisoned', aggregate_id: 'poisoned' });
    expect(dead[0].error).toMatch(/max_payload/);
    expect(await metrics.registry.getSingleMetricAsString('ppay_outbox_dead_letters_total')).toMatch(
      /collection="poisoned"[^}]*\} 1/,
    );
    await relay.stop();
    await messages.close();
  });

  it('unique indexes report duplicates as E11000 and counters hand out distinct ids under concurrency', async () => {
    const Unique = conn.model('Unique', new Schema({ ref: { type: String, unique: true } }));
    await ensureIndexes([Unique]);
    await Unique.create({ ref: 'r1' });
    const err = await Unique.create({ ref: 'r1' }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(err)).toBe(true);
    const ids = await Promise.all(Array.from({ length: 40 }, () => nextSequence(conn, 'test-seq', 1000)));
    expect(new Set(ids).size).toBe(40);
    expect(Math.min(...ids)).toBe(1000);
    expect(Math.max(...ids)).toBe(1039);
  });
});
