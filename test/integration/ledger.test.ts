import { headers as natsHeaders } from 'nats';
import { type EventEnvelope, type PaymentOutcome } from '@ppay/kernel';
import { connectNats, createLogger, type NatsContext } from '@ppay/runtime';
import { testInfraUrls } from '../support/infra';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { NGN_CHARGE } from '../support/fixtures';

/** Payment outcomes → JetStream events → wallet ledger, exactly once (spec 2.9, 4.1, 6.5). */
describe('payment outcomes and the wallet ledger', () => {
  let t: TestPlatform;
  let nats: NatsContext;
  let ngn: Awaited<ReturnType<TestPlatform['merchant']>>;

  const charge = (key: string, body: unknown) =>
    http(t.url, 'POST', '/api/v1/partner/payments/charge', { headers: { 'x-api-key': key }, body });
  const outcome = (key: string, chargeId: string, what: 'succeed' | 'fail') =>
    http(t.url, 'POST', `/api/v1/partner/sandbox/charges/${chargeId}/${what}`, { headers: { 'x-api-key': key } });
  const balances = (merchantId: number) => t.walletBalances(merchantId);
  const ngnCharge = NGN_CHARGE;

  beforeAll(async () => {
    t = await startTestPlatform('ledger');
    nats = await connectNats(testInfraUrls().natsUrl, 'ledger-test', createLogger('ledger-test', 'silent'));
    ngn = await t.merchant({ country: 'NG', currency: 'NGN' });
  });
  afterAll(async () => {
    await nats?.nc.drain();
    await t?.stop();
  });

  it('a successful sandbox charge credits the merchant its net once; a failed one credits nothing', async () => {
    const ok = await charge(ngn.api_key, ngnCharge);
    const failed = await charge(ngn.api_key, ngnCharge);
    expect((await outcome(ngn.api_key, failed.body.data.charge_id, 'fail')).body.data.status).toBe('failed');
    const succeeded = await outcome(ngn.api_key, ok.body.data.charge_id, 'succeed');
    expect(succeeded.status).toBe(200);
    expect(succeeded.body.data).toMatchObject({ charge_id: ok.body.data.charge_id, status: 'succeeded' });
    expect(
      await eventually(async () => (await balances(ngn.merchant_id)).some((b) => b.currency === 'NGN'), 10_000),
    ).toBe(true);
    expect(await balances(ngn.merchant_id)).toEqual([
      { currency: 'NGN', balance: 482_500, total_credits: 482_500, total_debits: 0, transaction_count: 1 },
    ]);
    // Final states are final.
    expect((await outcome(ngn.api_key, ok.body.data.charge_id, 'succeed')).status).toBe(200);
    expect((await outcome(ngn.api_key, ok.body.data.charge_id, 'fail')).status).toBe(409);
    expect((await outcome(ngn.api_key, failed.body.data.charge_id, 'succeed')).status).toBe(409);
  });

  it('the same payment event delivered three times credits once (publisher retry, replay after the dedupe window)', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    const created = await charge(m.api_key, ngnCharge);
    await outcome(m.api_key, created.body.data.charge_id, 'succeed');
    expect(await eventually(async () => (await balances(m.merchant_id)).length === 1, 10_000)).toBe(true);

    // The event as it sits in the stream, with the MulticurrencyBreakdown of spec 6.5.
    const stored = await nats.jsm.streams.getMessage('PAYMENTS', { last_by_subj: 'payments.payment.succeeded' });
    const event = stored.json<EventEnvelope>();
    const data = event.data as PaymentOutcome;
    expect(data.charge_id).toBe(created.body.data.charge_id);
    expect(event.event_id).toMatch(/^evt_[0-9a-f-]{36}$/);
    expect(data.breakdown).toEqual({
      customer_paid: { amount: 500_000, currency: 'NGN' },
      merchant_gross: { amount: 500_000, currency: 'NGN' },
      merchant_net: { amount: 482_500, currency: 'NGN' },
      fees: {
        platform_fee: { amount: 17_500, currency: 'NGN' },
        gateway_fee: { amount: 0, currency: 'NGN' },
        total: { amount: 17_500, currency: 'NGN' },
      },
    });

    // 1. Publisher retry inside the window: JetStream drops it by Nats-Msg-Id.
    const retry = await nats.js.publish('payments.payment.succeeded', stored.data, { msgID: event.event_id });
    expect(retry.duplicate).toBe(true);
    // 2. Replay after the window (a new message id, as JetStream no longer remembers the old one).
    const h = natsHeaders();
    const replay = await nats.js.publish('payments.payment.succeeded', stored.data, {
      msgID: `${event.event_id}-late`,
      headers: h,
    });
    expect(replay.duplicate).toBe(false);
    // The consumer processes the replay and the ledger refuses the second credit.
    const metrics = () => fetch(t.platform.metricsUrl('payments')).then((r) => r.text());
    expect(
      await eventually(async () => /ppay_ledger_duplicate_entries_total\{[^}]*\} [1-9]/.test(await metrics()), 10_000),
    ).toBe(true);
    expect(await balances(m.merchant_id)).toEqual([
      { currency: 'NGN', balance: 482_500, total_credits: 482_500, total_debits: 0, transaction_count: 1 },
    ]);
    const entries = await (
      await t.db('payments')
    )
      .collection('ledger_entries')
      .countDocuments({ merchant_id: m.merchant_id });
    expect(entries).toBe(1);
  });

  it('a converted charge credits the merchant in its own currency (total_amount is the source of truth)', async () => {
    const usd = await t.merchant({ country: 'US', currency: 'USD' });
    const calc = await http(t.url, 'GET', '/api/v1/partner/pricing/calculate?amount=2000&target_currency=NGN', {
      headers: { 'x-api-key': usd.api_key },
    });
    expect(calc.status).toBe(200);
    const amount = calc.body.data.local.amount as number;
    const created = await charge(usd.api_key, { ...ngnCharge, amount, total_amount: 2_000, total_currency: 'USD' });
    expect(created.status).toBe(200);
    await outcome(usd.api_key, created.body.data.charge_id, 'succeed');
    expect(await eventually(async () => (await balances(usd.merchant_id)).length === 1, 10_000)).toBe(true);
    const [balance] = await balances(usd.merchant_id);
    expect(balance!.currency).toBe('USD');
    // Net = 2000 cents minus the NGN fee restated in USD at the charge's own ratio.
    const fee = created.body.data.fee_details.transaction_fee as number;
    expect(balance!.total_credits).toBe(2_000 - Math.round((fee * 2_000) / amount));
  });

  it('sandbox helpers refuse live keys and unknown charges', async () => {
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': ngn.user_token },
      body: { mode: 'live' },
    });
    const res = await outcome(live.body.data.api_key, 'ch_doesnotexist', 'succeed');
    expect([res.status, res.body.message]).toEqual([403, 'Sandbox test helpers are only available with sandbox keys']);
    const missing = await outcome(ngn.api_key, 'ch_doesnotexist', 'succeed');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'CHARGE_NOT_FOUND']);
  });
});

describe('the 1% double-check against the service conversion (spec 4.1, 8)', () => {
  let t: TestPlatform;
  let usd: Awaited<ReturnType<TestPlatform['merchant']>>;
  beforeAll(async () => {
    t = await startTestPlatform('tolerance');
    usd = await t.merchant({ country: 'US', currency: 'USD' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const expectedFor = async (total: number, target: string) =>
    (
      await http(t.url, 'GET', `/api/v1/partner/pricing/calculate?amount=${total}&target_currency=${target}`, {
        headers: { 'x-api-key': usd.api_key },
      })
    ).body.data.local.amount as number;

  it.each([
    ['NGN (2 decimals)', 'NGN', 12_345],
    ['XAF (whole units)', 'XAF', 12_345],
    ['XOF (whole units)', 'XOF', 999],
  ])('%s: exactly 1% off passes, one minor unit more fails', async (_name, currency, total) => {
    const expected = await expectedFor(total, currency);
    const edge = Math.floor(expected / 100); // the largest whole-unit difference within 1%
    const body = (amount: number, extra: Record<string, unknown> = {}) => ({
      amount,
      currency,
      total_amount: total,
      total_currency: 'USD',
      customer: { email: 'c@example.com' },
      preview: true,
      ...extra,
    });
    const charge = (b: unknown) =>
      http(t.url, 'POST', '/api/v1/partner/payments/charge', { headers: { 'x-api-key': usd.api_key }, body: b });
    for (const amount of [expected, expected + edge, expected - edge]) {
      const res = await charge(body(amount));
      expect([amount, res.status]).toEqual([amount, 200]);
      expect(res.body.data.conversion).toMatchObject({
        original_amount: total,
        original_currency: 'USD',
        converted_amount: expected,
        converted_currency: currency,
      });
    }
    for (const amount of [expected + edge + 1, expected - edge - 1]) {
      const res = await charge(body(amount));
      expect([amount, res.status, res.body.message]).toEqual([amount, 400, 'Amount mismatch']);
    }
    // converted_total_amount must agree with amount within 1% too.
    const off = await charge(
      body(expected, { converted_total_amount: expected + edge + 1, converted_total_currency: currency }),
    );
    expect([off.status, off.body.message]).toEqual([400, 'converted_total_amount does not match amount']);
    const fine = await charge(
      body(expected, { converted_total_amount: expected + edge, converted_total_currency: currency }),
    );
    expect(fine.status).toBe(200);
  });

  it('an unconvertible pair is "Unable to convert from X to Y"', async () => {
    const res = await http(t.url, 'POST', '/api/v1/partner/payments/charge', {
      headers: { 'x-api-key': usd.api_key },
      body: {
        amount: 100,
        currency: 'NGN',
        total_amount: 100,
        total_currency: 'CLF',
        customer: { email: 'c@example.com' },
      },
    });
    expect([res.status, res.body.message]).toEqual([400, 'Unable to convert from CLF to NGN']);
  });
});
