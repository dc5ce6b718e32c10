import { randomBytes } from 'node:crypto';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/** Spec 4.1 marketplace split (steps 1–4) and the 2.11 record, end to end. */
describe('marketplace split on successful payments', () => {
  let t: TestPlatform;
  const api = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const balance = async (merchantId: number) =>
    (await t.walletBalances(merchantId)).map((b) => [b.currency, b.total_credits]);
  const subMerchant = async (opKey: string, commission?: number) => {
    const res = await api(opKey, 'POST', '/marketplace/merchants', {
      email: `sub${randomBytes(4).toString('hex')}@example.com`,
      business_name: 'Sub',
      country: 'NG',
      baseline_currency: 'NGN',
      ...(commission === undefined ? {} : { commission_rate: commission }),
    });
    expect(res.status).toBe(201);
    return res.body.data.merchant_id as number;
  };
  const operator = async (defaultRate?: number) => {
    const op = await t.merchant({ marketplace: true, country: 'NG', currency: 'NGN' });
    const setup = await api(op.api_key, 'POST', '/marketplace/setup', {
      marketplace_name: 'Market',
      ...(defaultRate === undefined ? {} : { default_commission_rate: defaultRate }),
    });
    expect(setup.status).toBe(200);
    return op;
  };
  const paidCharge = async (opKey: string, subId: number, reference: string) => {
    const created = await api(opKey, 'POST', '/payments/charge', {
      amount: 500_000,
      currency: 'NGN',
      total_amount: 500_000,
      total_currency: 'NGN',
      customer: { email: 'buyer@example.com' },
      sub_merchant_id: subId,
      reference,
    });
    expect([created.status, created.body.error?.code]).toEqual([200, undefined]);
    return created.body.data.charge_id as string;
  };

  beforeAll(async () => {
    t = await startTestPlatform('split');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('credits the operator amount minus the platform fee and the sub-merchant total minus commission, per commission source', async () => {
    const op = await operator(5);
    const withOwnRate = await subMerchant(op.api_key, 8); // per-merchant rate
    const withDefault = await subMerchant(op.api_key); // marketplace default
    const bare = await operator(); // no default → 0
    const withNone = await subMerchant(bare.api_key);

    for (const [key, sub, ref] of [
      [op.api_key, withOwnRate, 'cart-own'],
      [op.api_key, withDefault, 'cart-default'],
      [bare.api_key, withNone, 'cart-none'],
    ] as const) {
      const chargeId = await paidCharge(key, sub, ref);
      const done = await api(key, 'POST', `/sandbox/charges/${chargeId}/succeed`);
      expect(done.status).toBe(200);
    }
    const settled = async () =>
      (await balance(withOwnRate)).length === 1 &&
      (await balance(withDefault)).length === 1 &&
      (await balance(withNone)).length === 1;
    expect(await eventually(settled, 15_000)).toBe(true);
    // Operator: 2 × (500,000 − 17,500 fee) in the charge currency.
    expect(await balance(op.merchant_id)).toEqual([['NGN', 965_000]]);
    expect(await balance(withOwnRate)).toEqual([['NGN', 460_000]]); // 8%
    expect(await balance(withDefault)).toEqual([['NGN', 475_000]]); // 5% default
    expect(await balance(withNone)).toEqual([['NGN', 500_000]]); // 0
    expect(await balance(bare.merchant_id)).toEqual([['NGN', 482_500]]);

    const record = await (
      await t.db('payments')
    )
      .collection('ledger_entries')
      .findOne({ merchant_id: withOwnRate, reason: 'marketplace_split' });
    expect(record?.conversion_details).toEqual({
      source: 'marketplace_split',
      marketplace_id: op.merchant_id,
      charge_currency: 'NGN',
      gross_product_amount: 500_000,
      commission_rate: '0.0800',
      commission_amount: 40_000,
      net_credited: 460_000,
      cart_identifier: 'cart-own',
    });
  });

  it('a sub-merchant suspended before the payment succeeds is skipped; the operator is still credited', async () => {
    const op = await operator(10);
    const sub = await subMerchant(op.api_key);
    const chargeId = await paidCharge(op.api_key, sub, 'cart-suspended');
    expect((await api(op.api_key, 'DELETE', `/marketplace/merchants/${sub}`)).status).toBe(200);
    await api(op.api_key, 'POST', `/sandbox/charges/${chargeId}/succeed`);
    expect(await eventually(async () => (await balance(op.merchant_id)).length === 1, 15_000)).toBe(true);
    expect(await balance(op.merchant_id)).toEqual([['NGN', 482_500]]);
    expect(await balance(sub)).toEqual([]);
  });

  it('a consumer redelivery (marketplace down while the split is resolved) still credits exactly once', async () => {
    const op = await operator(8);
    const sub = await subMerchant(op.api_key);
    const chargeId = await paidCharge(op.api_key, sub, 'cart-redelivered');
    await t.platform.stopProcess('marketplace', 'SIGKILL');
    try {
      expect((await api(op.api_key, 'POST', `/sandbox/charges/${chargeId}/succeed`)).status).toBe(200);
      const metrics = () => fetch(t.platform.metricsUrl('payments')).then((r) => r.text());
      // The ledger consumer cannot resolve the split, so it naks and JetStream redelivers.
      expect(
        await eventually(
          async () =>
            /ppay_nats_consumed_total\{[^}]*consumer="payments_ledger"[^}]*outcome="nak"[^}]*\} [1-9]/.test(
              await metrics(),
            ),
          15_000,
        ),
      ).toBe(true);
      expect(await balance(op.merchant_id)).toEqual([]);
    } finally {
      await t.platform.startProcess('marketplace');
    }
    // The sub-merchant's credit is written before the operator's (H3-11): once the operator's shows, both do.
    expect(await eventually(async () => (await balance(op.merchant_id)).length === 1, 30_000, 250)).toBe(true);
    expect(await balance(op.merchant_id)).toEqual([['NGN', 482_500]]);
    expect(await balance(sub)).toEqual([['NGN', 460_000]]);
    const metricsText = await fetch(t.platform.metricsUrl('payments')).then((r) => r.text());
    expect(metricsText).toMatch(/ppay_nats_redeliveries_total\{[^}]*consumer="payments_ledger"[^}]*\} [1-9]/);
    const entries = await (await t.db('payments')).collection('ledger_entries').countDocuments({ charge_id: chargeId });
    expect(entries).toBe(2);
  });

  it('refuses sub_merchant_id that is not an active sub-merchant of the calling operator', async () => {
    const op = await operator(5);
    const other = await operator(5);
    const foreign = await subMerchant(other.api_key);
    const suspended = await subMerchant(op.api_key);
    await api(op.api_key, 'DELETE', `/marketplace/merchants/${suspended}`);
    for (const sub of [foreign, suspended, 999_999]) {
      const res = await api(op.api_key, 'POST', '/payments/charge', {
        amount: 1000,
        currency: 'NGN',
        total_amount: 1000,
        total_currency: 'NGN',
        customer: { email: 'buyer@example.com' },
        sub_merchant_id: sub,
        preview: true,
      });
      expect([sub, res.status, res.body.error.code]).toEqual([sub, 400, 'SUB_MERCHANT_NOT_ACTIVE']);
    }
  });
});
