import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

const SUBSCRIPTIONS = 24;
const MONTHS = 6;

/**
 * Issue 13 proof: the renewal scheduler under a kill -9 and with two replicas. No period is charged twice
 * and none is skipped: a crashed scheduler's claims come back after its lease, and any charge it had asked
 * for is repeated with the same idempotency key (payments answers the same charge).
 */
describe('subscription renewals survive kill -9 and run safely on two scheduler replicas', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform('subscriptions-resilience', {
      envFor: {
        subscriptions: { SCHEDULER_INTERVAL_MS: '100', SCHEDULER_LEASE_MS: '2000', SCHEDULER_CONCURRENCY: '4' },
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('every period charged exactly once', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    const ids: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const res = await http(t.url, 'POST', '/api/v1/partner/sandbox/subscriptions', {
        headers: { 'x-api-key': m.api_key },
        body: {
          amount: 100_000,
          currency: 'NGN',
          product_name: 'Box',
          customer: { email: `c${i}@example.com` },
          subscription_frequency_key: 'monthly',
          card_number: '4242 4242 4242 4242',
        },
      });
      expect(res.status).toBe(200);
      ids.push(res.body.data.id);
    }
    const subsDb = await t.db('subscriptions');
    const paymentsDb = await t.db('payments');
    // Half a year passes for all of them at once (their clocks move; the background schedulers do the work).
    const ahead = (MONTHS * 31 - 2) * 86_400_000;
    await subsDb
      .collection('subscriptions')
      .updateMany({ merchant_id: m.merchant_id }, { $set: { clock_offset_ms: ahead, wake_at: new Date(0) } });
    await t.platform.startProcess('subscriptions', 1);

    const renewalsDone = () =>
      subsDb.collection('renewals').countDocuments({ merchant_id: m.merchant_id, status: 'paid' });
    expect(await eventually(async () => (await renewalsDone()) >= 20, 60_000, 100)).toBe(true);
    // Crash the first replica mid-renewals, then bring it back.
    await t.platform.stopProcess('subscriptions', 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    await t.platform.startProcess('subscriptions');
    expect(await eventually(async () => (await renewalsDone()) >= 60, 60_000, 100)).toBe(true);
    // And the second one.
    await t.platform.stopProcess('subscriptions', 'SIGKILL', 15_000, 1);

    const expected = SUBSCRIPTIONS * MONTHS;
    expect(await eventually(async () => (await renewalsDone()) === expected, 120_000, 200)).toBe(true);
    expect(
      await eventually(
        async () =>
          (await subsDb
            .collection('subscriptions')
            .countDocuments({ merchant_id: m.merchant_id, 'current_period.index': MONTHS, status: 'active' })) ===
          SUBSCRIPTIONS,
        30_000,
      ),
    ).toBe(true);

    const charges = await paymentsDb.collection('charges').find({ merchant_id: m.merchant_id }).toArray();
    const succeeded = charges.filter((c) => c.status === 'succeeded');
    expect(succeeded).toHaveLength(SUBSCRIPTIONS * (MONTHS + 1));
    for (const id of ids) {
      const mine = succeeded.filter((c) => String(c.reference_key).startsWith(`sub:${id}:`));
      const periods = mine.map((c) => String(c.reference_key).split(':').slice(2, -1).join(':'));
      // One success per period, and the periods are consecutive months from the first one.
      expect(new Set(periods).size).toBe(MONTHS + 1);
      expect(mine).toHaveLength(MONTHS + 1);
      const renewals = await subsDb
        .collection('renewals')
        .find({ subscription_id: id })
        .sort({ period_index: 1 })
        .toArray();
      expect(renewals.map((r) => r.period_index)).toEqual([1, 2, 3, 4, 5, 6]);
    }
    // Every payment credits the wallet exactly once.
    expect(
      await eventually(
        async () => (await t.walletBalances(m.merchant_id))[0]?.transaction_count === SUBSCRIPTIONS * (MONTHS + 1),
        30_000,
      ),
    ).toBe(true);
  });
});
