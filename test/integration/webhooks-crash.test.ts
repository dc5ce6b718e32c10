import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { NGN_CHARGE } from '../support/fixtures';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/** An attempt as stored: a JSON string, or an object in documents of earlier versions. */
type StoredAttempt = string | { number: number };
const attemptNumber = (a: StoredAttempt) => (typeof a === 'string' ? (JSON.parse(a) as { number: number }) : a).number;
import { startReceiver } from '../support/webhook-receiver';

const WEBHOOKS_MAIN = path.resolve(__dirname, '..', '..', 'services', 'webhooks', 'dist', 'main.js');

/**
 * Issue 10 "durable and fair": two webhooks replicas share the work, one is killed with SIGKILL in
 * the middle of a fan-out, and every delivery still arrives (at least once), none is lost.
 */
describe('webhook delivery survives kill -9 with two replicas', () => {
  let t: TestPlatform;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let replica: ChildProcess | undefined;

  const partner = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });

  beforeAll(async () => {
    // Slow enough answers that deliveries are in flight when the kill comes.
    rx = await startReceiver(() => ({ status: 200, delayMs: 150 }));
    t = await startTestPlatform('webhooks-crash', {
      envFor: { webhooks: { WEBHOOKS_LEASE_MS: '11000', WEBHOOKS_PER_ENDPOINT_CONCURRENCY: '2' } },
    });
    // A second replica of the webhooks service: same database and consumer, its own ports.
    const env = { ...t.platform.envFor('webhooks'), GRPC_PORT: '0', METRICS_PORT: '0' };
    replica = spawn(process.execPath, [WEBHOOKS_MAIN], { env, stdio: 'ignore' });
  });
  afterAll(async () => {
    if (replica && replica.exitCode === null) replica.kill('SIGKILL');
    await t?.stop();
    await rx?.close();
  });

  it('delivers every event to every key after one replica is killed mid-fan-out', async () => {
    const m = await t.merchant();
    const asUser = (method: string, url: string, body?: unknown) =>
      http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-id-key': m.user_token }, body });
    await asUser('PUT', `/api-keys/${m.api_key_id}/webhook`, { webhook_url: rx.url('/one') });
    const second = await asUser('POST', '/create-api-key', { type: 'sandbox', webhook_url: rx.url('/two') });
    expect(second.status).toBe(201);

    const charges = 12;
    const ids = await Promise.all(
      Array.from({ length: charges }, async () => {
        const created = await partner(m.api_key, 'POST', '/payments/charge', NGN_CHARGE);
        return created.body.data.charge_id as string;
      }),
    );
    await Promise.all(ids.map((id) => partner(m.api_key, 'POST', `/sandbox/charges/${id}/succeed`)));
    // Some deliveries are done, others in flight or not yet created: kill one replica now.
    expect(await eventually(async () => rx.received.length >= 3, 15_000, 10)).toBe(true);
    await t.platform.stopProcess('webhooks', 'SIGKILL');
    const atKill = rx.received.length;
    await t.platform.startProcess('webhooks');

    // 12 payment.succeeded + 12 wallet.credited, to each of the two keys.
    const distinct = (p: string) => new Set(rx.on(p).map((r) => r.body.event_id)).size;
    const complete = await eventually(
      async () => distinct('/one') === 2 * charges && distinct('/two') === 2 * charges,
      60_000,
      250,
    );
    expect([atKill < 4 * charges, distinct('/one'), distinct('/two')]).toEqual([true, 2 * charges, 2 * charges]);
    expect(complete).toBe(true);

    // The log agrees: every delivery succeeded, and attempt numbers were never reset.
    // A first attempt the killed replica sent but had not stored comes back with its message after the
    // consumer's 30 s ack wait, is stored as interrupted and sent again as attempt 2 (at-least-once); a
    // claimed retry it held comes back when its lease expires: wait for those too.
    const db = await t.db('webhooks');
    const deliveries = () => db.collection('webhook_deliveries').find({ merchant_id: m.merchant_id }).toArray();
    await eventually(
      async () => {
        const docs = await deliveries();
        return docs.length === 4 * charges && docs.every((d) => d.status === 'succeeded');
      },
      60_000,
      500,
    );
    const docs = await deliveries();
    expect(docs).toHaveLength(4 * charges);
    expect(docs.filter((d) => d.status !== 'succeeded').map((d) => [d.status, d.attempts.length])).toEqual([]);
    for (const d of docs) {
      const numbers = (d.attempts as StoredAttempt[]).map(attemptNumber);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    }
  }, 180_000);

  it('sends deliveries stored before webhook_due existed, continuing their attempt numbers (boot migration)', async () => {
    const m = await t.merchant();
    const asUser = (method: string, url: string, body?: unknown) =>
      http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-id-key': m.user_token }, body });
    await asUser('PUT', `/api-keys/${m.api_key_id}/webhook`, { webhook_url: rx.url('/legacy') });
    const created = await partner(m.api_key, 'POST', '/payments/charge', NGN_CHARGE);
    await partner(m.api_key, 'POST', `/sandbox/charges/${created.body.data.charge_id}/succeed`);
    expect(await eventually(async () => rx.on('/legacy').length >= 2, 20_000)).toBe(true);

    // Rewrite its payment.succeeded delivery as the previous version left an unfinished one: all its
    // state in the log document, two failed attempts made, and no due entry.
    const db = await t.db('webhooks');
    const logs = db.collection<{ _id: string; attempts: StoredAttempt[] } & Record<string, unknown>>(
      'webhook_deliveries',
    );
    const paid = () => logs.findOne({ merchant_id: m.merchant_id, event_type: 'payment.succeeded' });
    // Received is not yet recorded: wait for the outcome to be written before rewriting the document.
    expect(await eventually(async () => (await paid())?.status === 'succeeded', 20_000, 250)).toBe(true);
    const doc = (await paid())!;
    const first = doc.attempts[0]!;
    const failed = (n: number) => ({
      // As the previous version stored attempts: objects (this one stores JSON strings).
      ...(typeof first === 'string' ? (JSON.parse(first) as object) : first),
      number: n,
      status: 500,
      success: false,
      error_class: 'http_error',
    });
    await logs.updateOne(
      { _id: doc._id },
      {
        $set: {
          status: 'pending',
          attempt_count: 2,
          round_attempts: 2,
          next_attempt_at: new Date(),
          claim_token: null,
          attempts: [failed(1), failed(2)],
        },
        $unset: { due_tracked: '' },
      },
    );
    await db.collection<{ _id: string }>('webhook_due').deleteOne({ _id: doc._id });
    const before = rx.on('/legacy').length;

    await t.platform.stopProcess('webhooks', 'SIGKILL');
    await t.platform.startProcess('webhooks');
    const paidId = rx.on('/legacy').find((r) => r.body.event_type === 'payment.succeeded')!.body.event_id;
    const resent = async () =>
      rx
        .on('/legacy')
        .slice(before)
        .some((r) => r.body.event_id === paidId);
    expect(await eventually(resent, 20_000)).toBe(true);
    expect(
      await eventually(async () => (await logs.findOne({ _id: doc._id }))!.status === 'succeeded', 20_000, 250),
    ).toBe(true);
    const after = (await logs.findOne({ _id: doc._id }))!;
    expect([after.attempt_count, after.attempts.map(attemptNumber)]).toEqual([3, [1, 2, 3]]);
    expect(await db.collection<{ _id: string }>('webhook_due').countDocuments({ _id: doc._id })).toBe(0);
  }, 90_000);
});
