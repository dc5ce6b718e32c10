import { connectNats, createLogger, type NatsContext } from '@ppay/runtime';
import { testInfraUrls } from '../support/infra';
import { http, startTestPlatform, type TestPlatform } from '../support/platform';
import { NGN_CHARGE } from '../support/fixtures';

/**
 * Issue 9, point 2: a processor that answers after the gateway's deadline. The partner sees 504
 * (an unknown outcome, never "nothing happened"); retrying with the same Idempotency-Key returns
 * the one charge the late answer completed — never a second charge.
 */
describe('charges whose processor answers after the gateway deadline', () => {
  let t: TestPlatform;
  let nats: NatsContext;
  const DEADLINE_MS = 1_500;
  const PROCESSOR_DELAY_MS = 3_000;

  beforeAll(async () => {
    t = await startTestPlatform('charge-timeouts', {
      envFor: {
        gateway: { GRPC_PAYMENT_DEADLINE_MS: String(DEADLINE_MS) },
        payments: { SANDBOX_INIT_DELAY_MS: String(PROCESSOR_DELAY_MS) },
      },
    });
    nats = await connectNats(testInfraUrls().natsUrl, 'charge-timeouts-test', createLogger('test', 'silent'));
  });
  afterAll(async () => {
    await nats?.nc.drain();
    await t?.stop();
  });

  it('a 504, then the same key until it answers: exactly one charge, and later replays agree', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    const send = () =>
      http(t.url, 'POST', '/api/v1/partner/payments/charge', {
        headers: { 'x-api-key': m.api_key, 'idempotency-key': 'order-7-attempt' },
        body: { ...NGN_CHARGE, reference: 'order-7' },
      });
    const started = Date.now();
    const first = await send();
    expect([first.status, first.body.error?.code]).toEqual([504, 'UPSTREAM_TIMEOUT']);
    expect(Date.now() - started).toBeLessThan(PROCESSOR_DELAY_MS);

    // Retried as partners are told to: same key, until a definite answer.
    const answers: number[] = [];
    let final = first;
    for (let i = 0; i < 40 && final.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      final = await send();
      answers.push(final.status);
    }
    expect(final.status).toBe(200);
    expect(answers.every((s) => [200, 409, 504].includes(s))).toBe(true);
    const payments = await t.db('payments');
    expect(await payments.collection('charges').countDocuments({ merchant_id: m.merchant_id })).toBe(1);
    const stored = await payments.collection('charges').findOne({ merchant_id: m.merchant_id });
    expect(stored?._id).toBe(final.body.data.charge_id);
    expect(stored?.status).not.toBe('initializing');

    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.body.data.charge_id).toBe(final.body.data.charge_id);
    expect(await payments.collection('charges').countDocuments({ merchant_id: m.merchant_id })).toBe(1);
  });

  it('the Idempotency-Key bucket is bounded in bytes and per answer (point 13)', async () => {
    // Suites share one NATS server, so the bucket may have been created by another gateway: assert
    // the bounds exist (unbounded is -1), not this platform's figures.
    const info = await nats.jsm.streams.info('KV_IDEMPOTENCY');
    expect(info.config.max_bytes).toBeGreaterThan(0);
    expect(info.config.max_msg_size).toBeGreaterThan(0);
  });
});
