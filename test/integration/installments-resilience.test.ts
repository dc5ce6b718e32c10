import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

const PLANS = 60;
const PARTS = 4;

/**
 * Issue 26 proof: installment parts charged by the leased scheduler under a kill -9 and with two replicas,
 * as renewals are (subscriptions-resilience.test.ts). No part is charged twice and none is skipped: a
 * crashed scheduler's plans come back after its lease, and a charge it had asked for is repeated with the
 * same key (plan, part, attempt), which payments answers with the same charge.
 */
describe('installment plans survive kill -9 and run safely on two scheduler replicas', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform('installments-resilience', {
      envFor: {
        subscriptions: { SCHEDULER_INTERVAL_MS: '100', SCHEDULER_LEASE_MS: '2000', SCHEDULER_CONCURRENCY: '4' },
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('every later part charged exactly once, none skipped', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    const planIds: string[] = [];
    for (let i = 0; i < PLANS; i++) {
      const created = await http(t.url, 'POST', '/api/v1/partner/payments/sessions', {
        headers: { 'x-api-key': m.api_key },
        body: {
          amount: 400_003,
          currency: 'NGN',
          product_name: 'Phone',
          customer: { email: `c${i}@example.com` },
          installments: { count: PARTS, interval: 'monthly' },
        },
      });
      expect(created.status).toBe(200);
      planIds.push(created.body.data.installments.plan_id);
      const pay = await fetch(`${t.url}/checkout/${created.body.data.session_id}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ card_number: '4242424242424242', expiry: '12/34', cvc: '123' }),
        redirect: 'manual',
      });
      expect(pay.status).toBeLessThan(400);
    }
    const plansDb = await t.db('subscriptions');
    const paymentsDb = await t.db('payments');
    const plans = plansDb.collection('installment_plans');
    expect(
      await eventually(async () => (await plans.countDocuments({ merchant_id: m.merchant_id })) === PLANS, 20_000),
    ).toBe(true);

    // Four months pass for all of them at once (their clocks move; the background schedulers do the work).
    const ahead = 4 * 31 * 86_400_000;
    await plans.updateMany({ merchant_id: m.merchant_id }, { $set: { clock_offset_ms: ahead, wake_at: new Date(0) } });
    await t.platform.startProcess('subscriptions', 1);

    const partsCharged = () =>
      paymentsDb
        .collection('charges')
        .countDocuments({ merchant_id: m.merchant_id, status: 'succeeded', reference_key: { $regex: '^inst:' } });
    expect(await eventually(async () => (await partsCharged()) >= 20, 60_000, 50)).toBe(true);
    // Crash the first replica mid-run, then bring it back.
    await t.platform.stopProcess('subscriptions', 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    await t.platform.startProcess('subscriptions');
    expect(await eventually(async () => (await partsCharged()) >= 80, 60_000, 50)).toBe(true);
    // And the second one.
    await t.platform.stopProcess('subscriptions', 'SIGKILL', 15_000, 1);

    const expected = PLANS * (PARTS - 1);
    expect(
      await eventually(
        async () => (await plans.countDocuments({ merchant_id: m.merchant_id, status: 'completed' })) === PLANS,
        120_000,
        200,
      ),
    ).toBe(true);

    const charges = await paymentsDb.collection('charges').find({ merchant_id: m.merchant_id }).toArray();
    // The first parts were paid on the checkout page (their charges carry the session as reference).
    const later = charges.filter((c) => c.status === 'succeeded' && String(c.reference_key).startsWith('inst:'));
    expect(later).toHaveLength(expected);
    for (const id of planIds) {
      // One success per part 2…4: its key is inst:<plan>:<part>:<attempt>.
      const parts = later
        .filter((c) => String(c.reference_key).startsWith(`inst:${id}:`))
        .map((c) => Number(String(c.reference_key).split(':')[2]));
      expect([id, parts.sort()]).toEqual([id, [2, 3, 4]]);
      const plan = (await plans.findOne({ _id: id } as never))!;
      expect(plan.parts.map((p: { status: string }) => p.status)).toEqual(['paid', 'paid', 'paid', 'paid']);
      expect(plan.charging).toBeNull();
      // The plan names the charge that paid each part.
      for (const p of plan.parts.slice(1)) {
        expect(later.find((c) => c._id === p.charge_id)?.reference_key).toMatch(new RegExp(`^inst:${id}:${p.number}:`));
      }
    }
    // Every payment credits the wallet exactly once.
    expect(
      await eventually(
        async () => (await t.walletBalances(m.merchant_id))[0]?.transaction_count === PLANS * PARTS,
        30_000,
      ),
    ).toBe(true);
  });
});
