import { approvableKycSubmission, type NewMerchant } from '@ppay/devstack';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Wallets and staged payouts end to end (spec 2.9, 2.10, 3.4, 4.9 balance, 4.10, 7.5, 7.8): balances
 * from wallet documents, reservations that cannot overdraw under concurrency, approve races, reject,
 * and settlement (sandbox helper) with its wallet debit and events.
 */
describe('wallets and staged payouts', () => {
  let t: TestPlatform;
  let op: NewMerchant;

  const api = (key: string | undefined, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: key ? { 'x-api-key': key } : {}, body });
  const dashboard = (
    token: string | undefined,
    env: string,
    merchantId: number,
    reference: string,
    action: 'approve' | 'reject',
    body?: unknown,
  ) =>
    http(
      t.url,
      'POST',
      `/api/v1/marketplace/merchants/${merchantId}/payouts/${encodeURIComponent(reference)}/${action}`,
      {
        headers: { ...(token ? { 'x-id-key': token } : {}), 'x-environment': env },
        body,
      },
    );
  const error = (res: { status: number; body: any }) => [res.status, res.body.message];

  const operator = async () => {
    const o = await t.merchant({ marketplace: true, country: 'NG', currency: 'NGN' });
    expect((await api(o.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    return o;
  };

  /** A sub-merchant with its own sandbox key, approved KYC and a naira payout account. */
  const payableSubMerchant = async (o: NewMerchant = op) => {
    const sub = await t.merchant({ operator: o.merchant_id, country: 'NG', currency: 'NGN' });
    const kyc = await api(
      o.api_key,
      'POST',
      `/marketplace/merchants/${sub.merchant_id}/kyc`,
      approvableKycSubmission(),
    );
    expect([kyc.status, kyc.body.data?.status, kyc.body.message]).toEqual([200, 'approved', expect.any(String)]);
    expect((await api(o.api_key, 'POST', `/marketplace/merchants/${sub.merchant_id}/payout`, {})).status).toBe(200);
    return sub;
  };

  /** Credits the sub-merchant through a real marketplace charge; resolves to its available balance. */
  const fund = async (sub: NewMerchant, o: NewMerchant = op, reference = `cart-${sub.merchant_id}-${Date.now()}`) => {
    const before = (await t.walletBalances(sub.merchant_id))[0]?.transaction_count ?? 0;
    const created = await api(o.api_key, 'POST', '/payments/charge', {
      amount: 500_000,
      currency: 'NGN',
      total_amount: 500_000,
      total_currency: 'NGN',
      customer: { email: 'buyer@example.com' },
      sub_merchant_id: sub.merchant_id,
      reference,
    });
    expect(created.status).toBe(200);
    expect((await api(o.api_key, 'POST', `/sandbox/charges/${created.body.data.charge_id}/succeed`)).status).toBe(200);
    expect(
      await eventually(
        async () => ((await t.walletBalances(sub.merchant_id))[0]?.transaction_count ?? 0) > before,
        15_000,
      ),
    ).toBe(true);
    return (await api(sub.api_key, 'GET', '/balance')).body.data.balances[0].available as number;
  };

  const initiate = (sub: NewMerchant, reference: string, amount: number, extra: Record<string, unknown> = {}) =>
    api(sub.api_key, 'POST', '/marketplace/payouts', { amount, currency: 'NGN', reference, ...extra });

  beforeAll(async () => {
    // The wallet reconciler every second, so a drift injected below is seen within the test.
    t = await startTestPlatform('payouts', { envFor: { payments: { WALLET_RECONCILE_INTERVAL_MS: '1000' } } });
    op = await operator();
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('balance (spec 4.9, 2.9, 7.5) and GET /balance', () => {
    it('answers one entry per currency with Intl formatting, for the operator and the merchant itself', async () => {
      const sub = await payableSubMerchant();
      const available = await fund(sub);
      const res = await api(op.api_key, 'GET', `/marketplace/merchants/${sub.merchant_id}/balance`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        merchant_id: sub.merchant_id,
        balances: [
          {
            currency: 'NGN',
            balance: available,
            formatted_balance: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'NGN' }).format(
              available / 100,
            ),
            total_credits: available,
            total_debits: 0,
            transaction_count: 1,
            available,
            reserved: 0,
          },
        ],
      });
      expect((await api(sub.api_key, 'GET', '/balance')).body.data).toEqual({ balances: res.body.data.balances });
      // A merchant without money has no wallet yet: an empty list, not an error.
      const fresh = await payableSubMerchant();
      expect((await api(op.api_key, 'GET', `/marketplace/merchants/${fresh.merchant_id}/balance`)).body.data).toEqual({
        merchant_id: fresh.merchant_id,
        balances: [],
      });
    });

    it('7.5: 403 for a non-operator, 404 for another marketplace’s, a suspended or an unknown merchant', async () => {
      const plain = await t.merchant();
      const sub = await payableSubMerchant();
      expect(error(await api(plain.api_key, 'GET', `/marketplace/merchants/${sub.merchant_id}/balance`))).toEqual([
        403,
        'This endpoint is restricted to marketplace operators',
      ]);
      const other = await operator();
      const suspended = await payableSubMerchant();
      expect((await api(op.api_key, 'DELETE', `/marketplace/merchants/${suspended.merchant_id}`)).status).toBe(200);
      for (const [key, id] of [
        [other.api_key, sub.merchant_id],
        [op.api_key, suspended.merchant_id],
        [op.api_key, 999_999],
      ] as const) {
        expect(error(await api(key, 'GET', `/marketplace/merchants/${id}/balance`))).toEqual([
          404,
          'Active merchant relationship not found',
        ]);
      }
      expect((await api(undefined, 'GET', '/balance')).status).toBe(401);
    });
  });

  describe('initiation by the sub-merchant', () => {
    it('50 concurrent requests against a balance that covers 10 reserve exactly 10; the rest get a clear 400', async () => {
      const sub = await payableSubMerchant();
      const available = await fund(sub);
      const each = Math.floor(available / 10);
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => initiate(sub, `race-${i}`, each)));
      const accepted = results.filter((r) => r.status === 200);
      expect(accepted).toHaveLength(10);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect([r.status, r.body.error.code, r.body.message]).toEqual([
          400,
          'INSUFFICIENT_BALANCE',
          'Insufficient available balance for this payout',
        ]);
      }
      expect(accepted[0]!.body.data).toMatchObject({
        merchant_id: sub.merchant_id,
        amount: each,
        currency: 'NGN',
        request_status: 'pending',
        withdrawal_id: null,
        withdrawal_status: null,
        payment_gateway: 'naira_gateway',
        payout_method: 'bank_transfer',
      });
      const [wallet] = (await api(sub.api_key, 'GET', '/balance')).body.data.balances;
      expect(wallet).toMatchObject({ available: available - 10 * each, reserved: 10 * each, total_debits: 0 });
    });

    it('a repeated reference answers the same request; a different body with it is 409; the rules of the account apply', async () => {
      const sub = await payableSubMerchant();
      await fund(sub);
      const first = await initiate(sub, 'po-same', 10_000);
      const again = await initiate(sub, 'po-same', 10_000);
      expect(again.body.data.payout_request_id).toBe(first.body.data.payout_request_id);
      const [wallet] = (await api(sub.api_key, 'GET', '/balance')).body.data.balances;
      expect(wallet.reserved).toBe(10_000);
      expect((await initiate(sub, 'po-same', 20_000)).status).toBe(409);
      expect([(await initiate(sub, 'po-usd', 100, { currency: 'USD' })).body.error?.code]).toEqual([
        'PAYOUT_CURRENCY_MISMATCH',
      ]);
      expect((await initiate(sub, 'po-method', 100, { payout_method: 'mobile_money' })).status).toBe(400);
      // Not a sub-merchant: no relationship to pay out through.
      const plain = await t.merchant();
      expect(error(await initiate(plain, 'x', 100))).toEqual([404, 'Active merchant relationship not found']);
      // No KYC / payout account yet.
      const bare = await t.merchant({ operator: op.merchant_id, country: 'NG', currency: 'NGN' });
      expect((await initiate(bare, 'x', 100)).status).toBe(400);
    });
  });

  describe('approve and reject (spec 4.10, 3.4, 7.8)', () => {
    it('20 concurrent approvals: exactly one 200 with the withdrawal payout_pending, the rest 409 Already claimed', async () => {
      const sub = await payableSubMerchant();
      await fund(sub);
      expect((await initiate(sub, 'po-race', 50_000)).status).toBe(200);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-race', 'approve')),
      );
      const won = results.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      expect(won[0]!.body.data).toEqual({
        payout_request_id: expect.any(Number),
        withdrawal_id: expect.any(Number),
        merchant_id: sub.merchant_id,
        reference: 'po-race',
        amount: 50_000,
        currency: 'NGN',
        request_status: 'approved',
        withdrawal_status: 'payout_pending',
        payment_gateway: 'naira_gateway',
        payout_method: 'bank_transfer',
        approved_at: expect.any(String),
      });
      for (const r of results.filter((x) => x.status !== 200)) expect(error(r)).toEqual([409, 'Already claimed']);
    });

    it('7.8: 401 without a token, 403 for another marketplace, 404 for an environment or reference mismatch', async () => {
      const sub = await payableSubMerchant();
      await fund(sub);
      expect((await initiate(sub, 'po-rows', 1_000)).status).toBe(200);
      expect((await dashboard(undefined, 'sandbox', sub.merchant_id, 'po-rows', 'approve')).status).toBe(401);
      const other = await operator();
      expect(error(await dashboard(other.user_token, 'sandbox', sub.merchant_id, 'po-rows', 'approve'))).toEqual([
        403,
        'Permission denied',
      ]);
      expect(error(await dashboard(op.user_token, 'live', sub.merchant_id, 'po-rows', 'approve'))).toEqual([
        404,
        'Payout request not found',
      ]);
      expect(error(await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'nope', 'approve'))).toEqual([
        404,
        'Payout request not found',
      ]);
      expect((await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-rows', 'approve')).status).toBe(200);
      expect(error(await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-rows', 'approve'))).toEqual([
        409,
        'Already claimed',
      ]);
    });

    it('reject: 3–500 characters, releases the reservation, and the merchant may ask again', async () => {
      const sub = await payableSubMerchant();
      const available = await fund(sub);
      expect((await initiate(sub, 'po-all', available)).status).toBe(200);
      expect((await initiate(sub, 'po-next', available)).status).toBe(400);
      expect(
        (await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-all', 'reject', { reason: 'no' })).status,
      ).toBe(400);
      const rejected = await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-all', 'reject', {
        reason: 'Bank details under review',
      });
      expect(rejected.status).toBe(200);
      expect(rejected.body.data).toEqual({
        payout_request_id: expect.any(Number),
        merchant_id: sub.merchant_id,
        reference: 'po-all',
        status: 'rejected',
        rejection_reason: 'Bank details under review',
        rejected_at: expect.any(String),
      });
      const [wallet] = (await api(sub.api_key, 'GET', '/balance')).body.data.balances;
      expect(wallet).toMatchObject({ available, reserved: 0 });
      expect(error(await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-all', 'approve'))).toEqual([
        409,
        'Already claimed',
      ]);
      expect((await initiate(sub, 'po-next', available)).status).toBe(200);
    });
  });

  describe('settlement (sandbox helper) and its events', () => {
    it('paid is the final debit (wallet.debited to the merchant); failed releases; settlement.* reach the operator', async () => {
      const sub = await payableSubMerchant();
      const available = await fund(sub);
      expect((await initiate(sub, 'po-paid', 30_000)).status).toBe(200);
      expect((await initiate(sub, 'po-failed', 20_000)).status).toBe(200);
      expect((await api(sub.api_key, 'POST', '/sandbox/payouts/po-paid/paid')).status).toBe(409);
      for (const ref of ['po-paid', 'po-failed'])
        expect((await dashboard(op.user_token, 'sandbox', sub.merchant_id, ref, 'approve')).status).toBe(200);
      const paid = await api(sub.api_key, 'POST', '/sandbox/payouts/po-paid/paid');
      expect(paid.body.data).toMatchObject({
        request_status: 'approved',
        withdrawal_status: 'paid',
        paid_at: expect.any(String),
      });
      const failed = await api(sub.api_key, 'POST', '/sandbox/payouts/po-failed/failed');
      expect(failed.body.data).toMatchObject({ withdrawal_status: 'failed', failure_reason: expect.any(String) });
      expect((await api(sub.api_key, 'POST', '/sandbox/payouts/po-paid/failed')).status).toBe(409);
      expect((await api(op.api_key, 'POST', '/sandbox/payouts/po-paid/paid')).status).toBe(404);

      const [wallet] = (await api(sub.api_key, 'GET', '/balance')).body.data.balances;
      expect(wallet).toMatchObject({
        balance: available - 30_000,
        available: available - 30_000,
        reserved: 0,
        total_debits: 30_000,
        transaction_count: 2,
      });

      const types = async (key: string) =>
        ((await api(key, 'GET', '/events?limit=100')).body.data.events as { event_type: string }[]).map(
          (e) => e.event_type,
        );
      expect(await eventually(async () => (await types(sub.api_key)).includes('wallet.debited'), 15_000)).toBe(true);
      expect(
        await eventually(async () => {
          const seen = await types(op.api_key);
          return ['requested', 'approved', 'paid', 'failed'].every((k) => seen.includes(`settlement.${k}`));
        }, 15_000),
      ).toBe(true);
    });
  });

  describe('a payout goes where KYC said (Hardening 2 item 5)', () => {
    const payout = (sub: NewMerchant, body: unknown) =>
      api(op.api_key, 'PATCH', `/marketplace/merchants/${sub.merchant_id}/payout`, body);

    it('keeps the destination with the request; approve and pay refuse once the account or KYC changed', async () => {
      const sub = await payableSubMerchant();
      await fund(sub);
      const requested = await initiate(sub, 'po-dest-1', 10_000);
      expect(requested.body.data.destination).toEqual({
        kind: 'bank_account',
        bank_name: 'Access Bank',
        institution_id: expect.any(String),
        account_number_masked: '******3456',
        account_name: 'ADEBAYO JOHN',
        gateway_account_id: null,
        fingerprint: expect.stringMatching(/^pdf_/),
      });
      // The operator points the payouts at another account of the same holder: applied at once.
      const moved = await payout(sub, { account_number: '0690123999' });
      expect([moved.status, moved.body.data.change_status]).toEqual([200, 'applied']);
      const refused = await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-dest-1', 'approve');
      expect([refused.status, refused.body.error.code]).toEqual([409, 'PAYOUT_DESTINATION_CHANGED']);
      // A request made now carries the new destination and is approved; then KYC is revoked before payment.
      expect((await initiate(sub, 'po-dest-2', 10_000)).body.data.destination.account_number_masked).toBe('******3999');
      expect((await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-dest-2', 'approve')).status).toBe(200);
      const { id } = (await api(op.api_key, 'GET', `/marketplace/merchants/${sub.merchant_id}/kyc`)).body.data;
      const revoked = await api(op.api_key, 'POST', `/sandbox/kyc/${id}/revoke`, { reason: 'Document expired' });
      expect(revoked.status).toBe(200);
      const unpaid = await api(sub.api_key, 'POST', '/sandbox/payouts/po-dest-2/paid');
      expect([unpaid.status, unpaid.body.error.code]).toEqual([409, 'PAYOUT_KYC_NOT_APPROVED']);
      // A failure is still recorded, and releases the reservation.
      expect((await api(sub.api_key, 'POST', '/sandbox/payouts/po-dest-2/failed')).status).toBe(200);
      // And no change while KYC is not approved.
      const change = await payout(sub, { account_name: 'John Adebayo' });
      expect([change.status, change.body.error.code]).toEqual([409, 'PAYOUT_CHANGE_NEEDS_APPROVED_KYC']);
    });

    it('a holder name that does not match the KYC legal name goes to review, not live', async () => {
      const sub = await payableSubMerchant();
      await fund(sub);
      const before = (await initiate(sub, 'po-dest-3', 10_000)).body.data.destination;
      const pending = await payout(sub, { account_number: '0690123999', account_name: 'Chinedu Okafor' });
      expect([pending.status, pending.body.data.change_status, pending.body.message]).toEqual([
        200,
        'pending_review',
        'Payout account change submitted for review: the account name does not match the KYC legal name',
      ]);
      // Payouts still go to the approved account: the request is approved as it was made.
      expect((await initiate(sub, 'po-dest-4', 10_000)).body.data.destination).toEqual(before);
      expect((await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-dest-3', 'approve')).status).toBe(200);
      // A reviewer approves the change (the sandbox helper here, the admin queue in live): now it is live.
      const { id } = (await api(op.api_key, 'GET', `/marketplace/merchants/${sub.merchant_id}/kyc`)).body.data;
      expect((await api(op.api_key, 'POST', `/sandbox/kyc/${id}/approve_payout_change`, {})).status).toBe(200);
      const after = (await initiate(sub, 'po-dest-5', 10_000)).body.data.destination;
      expect([after.account_name, after.fingerprint === before.fingerprint]).toEqual(['Chinedu Okafor', false]);
      const stale = await dashboard(op.user_token, 'sandbox', sub.merchant_id, 'po-dest-4', 'approve');
      expect([stale.status, stale.body.error.code]).toEqual([409, 'PAYOUT_DESTINATION_CHANGED']);
    });
  });

  describe('reconciliation', () => {
    it('reports a wallet whose totals were changed behind the ledger (ppay_wallet_drift), and clears when repaired', async () => {
      const drift = async () => {
        const text = await (await fetch(t.platform.metricsUrl('payments'))).text();
        const line = text.split('\n').find((l) => l.startsWith('ppay_wallet_drift'));
        return line ? Number(line.split(' ').pop()) : NaN;
      };
      const sub = await payableSubMerchant();
      await fund(sub);
      expect(await eventually(async () => (await drift()) === 0, 15_000)).toBe(true);
      const wallets = (await t.db('payments')).collection('wallets');
      const id = `${sub.merchant_id}:sandbox:NGN`;
      await wallets.updateOne({ _id: id } as never, { $inc: { total_credits: 1, available: 1 } });
      expect(await eventually(async () => (await drift()) === 1, 15_000)).toBe(true);
      await wallets.updateOne({ _id: id } as never, { $inc: { total_credits: -1, available: -1 } });
      expect(await eventually(async () => (await drift()) === 0, 15_000)).toBe(true);
    });
  });
});
