import { createHmac } from 'node:crypto';
import { memoryPorts, pingEvent } from '../memory-ports.test-util';
import type { SendResult } from '../ports';
import { leaseEndOf } from './claim-token';
import { newDelivery } from './delivery';
import { SPEC_POLICY } from './delivery-policy';
import { FakeClock } from './fake-clock.test-util';
import type { DueRetry } from './retry-timers';
import { AttemptRunner, firstAttemptClaim, nextState } from './send-attempt';

/** An attempt runner on in-memory ports; each send takes 40 ms of the fake clock. */
async function runnerWith(policy: { allowPrivateTargets?: boolean } = {}) {
  const clock = new FakeClock();
  const { deliveries, events, keys, sender } = memoryPorts();
  const send = sender.send.bind(sender);
  sender.send = async (input) => {
    await clock.advance(40);
    return send(input);
  };
  const finished: [string, string, number][] = [];
  const metrics = {
    attempt: () => undefined,
    finished: (type: string, outcome: string, attempts: number) => void finished.push([type, outcome, attempts]),
    firstAttempt: () => undefined,
  };
  const retries: [Date, DueRetry][] = [];
  const runner = new AttemptRunner(
    { deliveries, events, keys, sender, metrics },
    { ...SPEC_POLICY, allowPrivateTargets: policy.allowPrivateTargets ?? false },
    clock,
    (at, retry) => void retries.push([at, retry]),
  );
  const key = keys.add({ key_id: 'k' });
  const event = pingEvent('1');
  await events.insert(event);
  await deliveries.insertMany([newDelivery(event, 'k', clock.now())]);
  const row = () => [...deliveries.rows.values()][0]!;
  /** Claims the delivery as the claim loop would, `leaseMs` from now. */
  const claim = async (leaseMs = 60_000) => {
    const now = clock.now();
    const [claimed] = await deliveries.claim({
      now,
      owner: 'w',
      leaseUntil: new Date(now.getTime() + leaseMs),
      limit: 1,
      keyRoom: new Map(),
      perKeyLimit: 8,
      merchantRoom: new Map(),
      perMerchantLimit: 64,
    });
    return claimed!;
  };
  return { clock, deliveries, keys, sender, runner, key, event, row, claim, finished, retries };
}

const answers = (result: Partial<SendResult>) => () => result;

describe('AttemptRunner', () => {
  it('records a 2xx as succeeded with exactly what was sent, and counts it', async () => {
    const t = await runnerWith();
    const answered: boolean[] = [];
    const startedAt = t.clock.now();
    await t.runner.run(await t.claim(), undefined, (responded) => answered.push(responded));
    const sent = t.sender.sent[0]!;
    expect(sent.headers['x-service-signature']).toBe(
      createHmac('sha256', 'whsec_current').update(sent.body).digest('hex'),
    );
    expect(t.row()).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      round_attempts: 1,
      claim_token: null,
      next_attempt_at: new Date(startedAt.getTime() + 40),
      updated_at: new Date(startedAt.getTime() + 40),
      last_error_class: null,
    });
    expect(t.row().attempts).toEqual([
      {
        number: 1,
        started_at: startedAt,
        duration_ms: 3,
        status: 200,
        error_class: null,
        success: true,
        response_excerpt: '',
        url: t.key.webhook_url,
        api_version: t.key.api_version,
        request_headers: sent.headers,
        request_body: sent.body,
      },
    ]);
    expect([answered, t.finished, t.retries]).toEqual([[true], [['ping', 'delivered', 1]], []]);
  });

  it('retries a failure retryDelayMs after the attempt ended, until the third of the round fails it', async () => {
    const t = await runnerWith();
    t.sender.answer = answers({ status: 500, error_class: 'http_error' });
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      await t.runner.run(await t.claim());
      statuses.push(t.row().status);
      if (i < 2) {
        const due = new Date(t.clock.now().getTime() + 2_000);
        expect(t.row().next_attempt_at).toEqual(due);
        expect(t.retries[i]).toEqual([due, { deliveryId: t.row().delivery_id, keyId: 'k', merchantId: 1 }]);
        await t.clock.advance(2_000);
      }
    }
    expect(statuses).toEqual(['pending', 'pending', 'failed']);
    expect([t.retries.length, t.row().round_attempts, t.row().attempt_count]).toEqual([2, 3, 3]);
    expect(t.finished).toEqual([['ping', 'failed', 3]]);
  });

  it('never retries a blocked target', async () => {
    const t = await runnerWith();
    t.sender.answer = answers({ error_class: 'blocked_target' });
    const answered: boolean[] = [];
    await t.runner.run(await t.claim(), undefined, (responded) => answered.push(responded));
    expect([t.row().status, t.retries, answered]).toEqual(['failed', [], [false]]);
  });

  it('records an interrupted attempt before it, whose count in the round is undone', async () => {
    const t = await runnerWith();
    t.sender.answer = answers({ status: 500, error_class: 'http_error' });
    await t.claim(-1); // a worker that died mid-attempt: its lease is over at once
    const claimed = await t.claim();
    expect([claimed.delivery.attempt_count, claimed.delivery.round_attempts]).toEqual([2, 2]);
    await t.runner.run(claimed);
    expect(t.row().attempts.map((a) => [a.number, a.error_class])).toEqual([
      [1, 'interrupted'],
      [2, 'http_error'],
    ]);
    expect([t.row().status, t.row().attempt_count, t.row().round_attempts]).toEqual(['pending', 2, 1]);
  });

  it('sends nothing to a key disabled since, and undoes the count of this claim too', async () => {
    const t = await runnerWith();
    t.key.active = false;
    await t.claim(-1);
    const answered: boolean[] = [];
    await t.runner.run(await t.claim(), undefined, (responded) => answered.push(responded));
    expect(t.sender.sent).toEqual([]);
    expect(t.row()).toMatchObject({ status: 'failed', last_error_class: 'key_inactive', round_attempts: 0 });
    expect(t.row().attempts.map((a) => a.error_class)).toEqual(['interrupted']);
    expect([answered, t.finished, t.retries]).toEqual([[false], [['ping', 'failed', 0]], []]);
  });

  it('leaves the outcome to the new owner when its claim was lost: no retry, no count', async () => {
    const t = await runnerWith();
    t.sender.answer = answers({ status: 500, error_class: 'http_error' });
    t.deliveries.complete = async () => false;
    await t.runner.run(await t.claim());
    expect([t.retries, t.finished]).toEqual([[], []]);
  });

  it('inserts a first attempt with its outcome, using the key and event it was handed', async () => {
    const t = await runnerWith();
    t.deliveries.rows.clear();
    const now = t.clock.now();
    const first = firstAttemptClaim(t.event, t.key, 'w_1', now, 60_000);
    expect(first.delivery).toMatchObject({ status: 'delivering', attempt_count: 1, round_attempts: 1 });
    expect(first.delivery.next_attempt_at).toEqual(new Date(now.getTime() + 60_000));
    expect([first.claim_token.startsWith('w_1:'), leaseEndOf(first.claim_token)]).toEqual([
      true,
      now.getTime() + 60_000,
    ]);
    const reads = jest.spyOn(t.keys, 'get');
    await t.runner.run(first, { event: t.event, key: t.key });
    expect(reads).not.toHaveBeenCalled();
    expect(t.row()).toMatchObject({ status: 'succeeded', attempt_count: 1, claim_token: null, created_at: now });
    expect(t.row().attempts.map((a) => a.number)).toEqual([1]);
  });

  it('lets only sandbox keys reach private targets, and only when the service allows them', async () => {
    for (const [allow, mode, expected] of [
      [true, 'sandbox', true],
      [true, 'live', false],
      [false, 'sandbox', false],
    ] as const) {
      const t = await runnerWith({ allowPrivateTargets: allow });
      t.key.mode = mode;
      const first = firstAttemptClaim(pingEvent('2', mode), t.key, 'w', t.clock.now(), 60_000);
      await t.runner.run(first, { event: pingEvent('2', mode), key: t.key });
      expect(t.sender.sent[0]!.allowPrivateTargets).toBe(expected);
    }
  });
});

describe('nextState', () => {
  const result = (over: Partial<SendResult>): SendResult => ({
    status: 500,
    duration_ms: 1,
    error_class: 'http_error',
    response_excerpt: '',
    success: false,
    ...over,
  });
  it('succeeds on success, fails a refused target at once, and otherwise after maxAttempts in the round', () => {
    expect(nextState(result({ status: 204, success: true, error_class: null }), 3, 3)).toBe('succeeded');
    expect(nextState(result({ status: null, error_class: 'blocked_target' }), 1, 3)).toBe('failed');
    expect([1, 2, 3].map((n) => nextState(result({}), n, 3))).toEqual(['pending', 'pending', 'failed']);
  });
});
