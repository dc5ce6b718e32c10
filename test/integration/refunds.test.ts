import { randomBytes } from 'node:crypto';
import { NGN_CHARGE } from '../support/fixtures';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startReceiver } from '../support/webhook-receiver';

/** Refunds end to end: cap under concurrency, ledger reversal exactly once, the webhook. */
describe('refunds', () => {
  let t: TestPlatform;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  const api = (key: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key, ...headers }, body });
  const refund = (key: string, chargeId: string, body: unknown = {}, idempotencyKey?: string) =>
    api(
      key,
      'POST',
      `/payments/charges/${chargeId}/refunds`,
      body,
      idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
    );
  const ledger = async (chargeId: string) =>
    (await t.db('payments'))
      .collection('ledger_entries')
      .find({ charge_id: chargeId })
      .sort({ created_at: 1 })
      .toArray();
  const debits = async (chargeId: string) => (await ledger(chargeId)).filter((e) => e.kind === 'debit');
  const sum = (entries: Record<string, unknown>[]) =>
    entries.reduce((s, e) => s + (e.amount as { amount: number }).amount, 0);
  const paidCharge = async (key: string, extra: Record<string, unknown> = {}) => {
    const created = await api(key, 'POST', '/payments/charge', { ...NGN_CHARGE, ...extra });
    expect([created.status, created.body.error?.code]).toEqual([200, undefined]);
    const id = created.body.data.charge_id as string;
    expect((await api(key, 'POST', `/sandbox/charges/${id}/succeed`)).status).toBe(200);
    // The payment's credits are in before the refunds (not required: the refund consumer would write them).
    expect(await eventually(async () => (await ledger(id)).length > 0, 15_000)).toBe(true);
    return id;
  };

  beforeAll(async () => {
    rx = await startReceiver(() => ({ status: 200 }));
    t = await startTestPlatform('refunds');
  });
  afterAll(async () => {
    await t?.stop();
    await rx?.close();
  });

  it('partial then full refund: idempotent by key, capped, debits the wallet once per refund, webhook payment.refunded', async () => {
    const m = await t.merchant();
    const hook = await http(t.url, 'PUT', `/api/v1/partner/api-keys/${m.api_key_id}/webhook`, {
      headers: { 'x-id-key': m.user_token },
      body: { webhook_url: rx.url('/refunds') },
    });
    expect(hook.status).toBe(200);
    const chargeId = await paidCharge(m.api_key);

    const partial = await refund(m.api_key, chargeId, { amount: 200_000, reason: 'damaged' }, 'rf-partial');
    expect([partial.status, partial.body.data]).toEqual([
      200,
      {
        refund_id: expect.stringMatching(/^re_/),
        charge_id: chargeId,
        amount: 200_000,
        currency: 'NGN',
        status: 'succeeded',
        reason: 'damaged',
        failure_reason: null,
        created_at: expect.any(String),
      },
    ]);
    const replay = await refund(m.api_key, chargeId, { amount: 200_000, reason: 'damaged' }, 'rf-partial');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.refund_id).toBe(partial.body.data.refund_id);
    expect((await refund(m.api_key, chargeId, { amount: 300_001 })).body.error?.code).toBe('REFUND_EXCEEDS_CHARGE');

    const rest = await refund(m.api_key, chargeId);
    expect([rest.status, rest.body.data.amount, rest.body.data.status]).toEqual([200, 300_000, 'succeeded']);
    const again = await refund(m.api_key, chargeId);
    expect([again.status, again.body.error?.code]).toEqual([400, 'CHARGE_ALREADY_REFUNDED']);

    const list = await api(m.api_key, 'GET', `/payments/charges/${chargeId}/refunds`);
    expect(list.body.data).toMatchObject({
      charge_id: chargeId,
      currency: 'NGN',
      amount_captured: 500_000,
      amount_refunded: 500_000,
      refunded: true,
      refunds: [{ amount: 200_000 }, { amount: 300_000 }],
    });

    // The merchant's credit (500,000 − 17,500 fee) is reversed in proportion: 2/5 then the rest.
    expect(await eventually(async () => (await debits(chargeId)).length === 2, 15_000)).toBe(true);
    expect((await debits(chargeId)).map((e) => [e.reason, e.amount.amount])).toEqual([
      ['refund', 193_000],
      ['refund', 289_500],
    ]);
    const [wallet] = await t.walletBalances(m.merchant_id);
    expect(wallet).toMatchObject({ currency: 'NGN', total_credits: 482_500, total_debits: 482_500, balance: 0 });

    expect(
      await eventually(
        async () => rx.on('/refunds').filter((r) => r.body.event_type === 'payment.refunded').length === 2,
        15_000,
      ),
    ).toBe(true);
    const events = rx.on('/refunds').filter((r) => r.body.event_type === 'payment.refunded');
    const first = events.find((e) => e.body.data.refund.refund_id === partial.body.data.refund_id)!;
    expect(first.body.data).toEqual({
      charge_id: chargeId,
      transaction_id: expect.stringMatching(/^txn_/),
      reference: null,
      gateway: 'naira_gateway',
      sub_merchant_id: null,
      amount_captured: { amount: 500_000, currency: 'NGN' },
      amount_refunded: { amount: 200_000, currency: 'NGN' },
      refunded: false,
      refund: {
        refund_id: partial.body.data.refund_id,
        amount: { amount: 200_000, currency: 'NGN' },
        status: 'succeeded',
        reason: 'damaged',
        created_at: partial.body.data.created_at,
      },
      metadata: {},
      refunded_at: expect.any(String),
    });
    // wallet.debited follows each debit, as wallet.credited follows each credit.
    expect(
      await eventually(
        async () => rx.on('/refunds').filter((r) => r.body.event_type === 'wallet.debited').length === 2,
        15_000,
      ),
    ).toBe(true);
  });

  it('20 concurrent refunds against one charge never exceed the capture; the ledger reverses exactly the credit', async () => {
    const m = await t.merchant();
    const chargeId = await paidCharge(m.api_key);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refund(m.api_key, chargeId, { amount: 62_500 }, `race-${i}`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    // The rest are refused: over the cap, or (arriving after the eighth) nothing left (400); or a 409 a
    // retry would settle.
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([400, 409]).toContain(a.status);
      if (a.status === 400) expect(['REFUND_EXCEEDS_CHARGE', 'CHARGE_ALREADY_REFUNDED']).toContain(a.body.error.code);
    }
    const list = await api(m.api_key, 'GET', `/payments/charges/${chargeId}/refunds`);
    expect(list.body.data).toMatchObject({ amount_refunded: 500_000, refunded: true });
    expect(list.body.data.refunds).toHaveLength(8);

    expect(await eventually(async () => (await debits(chargeId)).length === 8, 20_000)).toBe(true);
    // Give any duplicate a chance to show up: there must be none.
    await new Promise((r) => setTimeout(r, 1_500));
    const entries = await debits(chargeId);
    expect(entries).toHaveLength(8);
    expect(new Set(entries.map((e) => e._id)).size).toBe(8);
    expect(sum(entries)).toBe(482_500);
  });

  it('reverses a marketplace split in proportion: operator and sub-merchant, commission + net = reversed gross', async () => {
    const op = await t.merchant({ marketplace: true, country: 'NG', currency: 'NGN' });
    expect((await api(op.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Market' })).status).toBe(200);
    const sub = await api(op.api_key, 'POST', '/marketplace/merchants', {
      email: `sub${randomBytes(4).toString('hex')}@example.com`,
      business_name: 'Sub',
      country: 'NG',
      baseline_currency: 'NGN',
      commission_rate: 8,
    });
    expect(sub.status).toBe(201);
    const subId = sub.body.data.merchant_id as number;
    const chargeId = await paidCharge(op.api_key, { sub_merchant_id: subId, reference: 'cart-refund' });
    expect(await eventually(async () => (await ledger(chargeId)).length === 2, 15_000)).toBe(true);

    expect((await refund(op.api_key, chargeId, { amount: 125_000 })).status).toBe(200); // a quarter
    expect(await eventually(async () => (await debits(chargeId)).length === 2, 15_000)).toBe(true);
    const reversal = await debits(chargeId);
    const operatorDebit = reversal.find((e) => e.merchant_id === op.merchant_id)!;
    const subDebit = reversal.find((e) => e.merchant_id === subId)!;
    expect([operatorDebit.reason, operatorDebit.amount]).toEqual(['refund', { amount: 120_625, currency: 'NGN' }]);
    expect([subDebit.reason, subDebit.amount]).toEqual([
      'marketplace_split_reversal',
      { amount: 115_000, currency: 'NGN' },
    ]);
    expect(subDebit.conversion_details).toEqual({
      source: 'marketplace_split_reversal',
      marketplace_id: op.merchant_id,
      refund_id: expect.stringMatching(/^re_/),
      commission_rate: '0.0800',
      gross_reversed: 125_000,
      commission_reversed: 10_000,
      net_reversed: 115_000,
      cart_identifier: 'cart-refund',
    });
    // The rest: the credits are reversed exactly.
    expect((await refund(op.api_key, chargeId)).status).toBe(200);
    expect(await eventually(async () => (await debits(chargeId)).length === 4, 15_000)).toBe(true);
    const all = await debits(chargeId);
    expect(sum(all.filter((e) => e.merchant_id === op.merchant_id))).toBe(482_500);
    expect(sum(all.filter((e) => e.merchant_id === subId))).toBe(460_000);
  });

  it('sandbox decline, charges that cannot be refunded, and other merchants’ charges', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const chargeId = await paidCharge(m.api_key);
    const declined = await refund(m.api_key, chargeId, { reason: 'sandbox_decline' });
    expect([declined.status, declined.body.data.status, declined.body.data.failure_reason]).toEqual([
      200,
      'failed',
      'declined_by_processor',
    ]);
    expect((await api(m.api_key, 'GET', `/payments/charges/${chargeId}/refunds`)).body.data).toMatchObject({
      amount_refunded: 0,
      refunded: false,
    });
    expect((await refund(other.api_key, chargeId)).status).toBe(404);
    expect((await api(other.api_key, 'GET', `/payments/charges/${chargeId}/refunds`)).status).toBe(404);

    const pending = await api(m.api_key, 'POST', '/payments/charge', NGN_CHARGE);
    const pendingRefund = await refund(m.api_key, pending.body.data.charge_id);
    expect([pendingRefund.status, pendingRefund.body.error?.code]).toEqual([400, 'CHARGE_NOT_REFUNDABLE']);
    // Nothing moved for the declined refund.
    await new Promise((r) => setTimeout(r, 500));
    expect(await debits(chargeId)).toEqual([]);
  });
});
