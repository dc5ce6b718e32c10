import { PlatformError } from '@ppay/kernel';
import { LIVE_KEY, SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };

const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/** What payments answers for a wallet (ppay.payments.v1.WalletBalance): every amount a Money. */
const wireBalance = {
  balance: ngn(482_500),
  formatted_balance: 'NGN\u00a04,825.00',
  total_credits: ngn(482_500),
  total_debits: ngn(0),
  transaction_count: 1,
  available: ngn(400_000),
  reserved: ngn(82_500),
};

/** The spec 2.9 entry the partner sees: flat minor units and the currency. */
const restBalance = {
  currency: 'NGN',
  balance: 482_500,
  formatted_balance: 'NGN\u00a04,825.00',
  total_credits: 482_500,
  total_debits: 0,
  transaction_count: 1,
  available: 400_000,
  reserved: 82_500,
};

/** What payments answers for a request (proto3 optionals absent while null). */
const wirePayout = {
  payout_request_id: 7,
  merchant_id: 2000,
  reference: 'po-1',
  amount: ngn(10_000),
  request_status: 'pending',
  payment_gateway: 'naira_gateway',
  payout_method: 'bank_transfer',
  destination: {
    kind: 'bank_account',
    bank_name: 'Access Bank',
    account_number_masked: '******3456',
    fingerprint: 'pdf_1',
  },
  created_at: '2026-11-23T10:00:00.000Z',
  status: 'pending',
};

describe('wallet and payout routes over fake services', () => {
  it('GET /marketplace/merchants/{id}/balance: exactly the 4.9 shape, through marketplace', async () => {
    const t = await testGateway({
      marketplace: {
        GetMerchantBalance: () => ({ merchant_id: 2000, balances: [{ ...wireBalance, internal: 'x' }] }),
      },
    });
    const res = await t.app.inject({ method: 'GET', url: partner('/marketplace/merchants/2000/balance'), headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { merchant_id: 2000, balances: [restBalance] } });
    expect(t.calls[0]).toMatchObject({ service: 'marketplace', request: { merchant_id: 2000 }, mode: 'sandbox' });
  });

  it('7.5 errors pass through with their statuses', async () => {
    const t = await testGateway({
      marketplace: {
        GetMerchantBalance: (req: { merchant_id: number }) => {
          throw new PlatformError(req.merchant_id === 1 ? 'MARKETPLACE_OPERATOR_REQUIRED' : 'RELATIONSHIP_NOT_FOUND');
        },
      },
    });
    const one = await t.app.inject({ method: 'GET', url: partner('/marketplace/merchants/1/balance'), headers });
    expect([one.statusCode, one.json().message]).toEqual([403, 'This endpoint is restricted to marketplace operators']);
    const two = await t.app.inject({ method: 'GET', url: partner('/marketplace/merchants/2/balance'), headers });
    expect([two.statusCode, two.json().message]).toEqual([404, 'Active merchant relationship not found']);
  });

  it('GET /balance reads the caller’s own wallets from payments', async () => {
    const t = await testGateway({ payments: { GetWalletBalances: () => ({ balances: [wireBalance] }) } });
    const res = await t.app.inject({ method: 'GET', url: partner('/balance'), headers: { 'x-api-key': LIVE_KEY } });
    expect(res.json()).toEqual({ success: true, data: { balances: [restBalance] } });
    expect(t.calls[0]).toMatchObject({
      service: 'payments',
      method: 'GetWalletBalances',
      merchantId: '1000',
      mode: 'live',
    });
  });

  it('POST /marketplace/payouts sends Money and answers the 2.10 request with nulls for what is not set', async () => {
    const t = await testGateway({ marketplace: { InitiatePayout: () => wirePayout } });
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/payouts'),
      headers,
      payload: { amount: 10_000, currency: 'NGN', reference: 'po-1' },
    });
    expect(res.statusCode).toBe(200);
    expect(t.calls[0]!.request).toEqual({ amount: { amount: 10_000, currency: 'NGN' }, reference: 'po-1' });
    expect(res.json().data).toEqual({
      payout_request_id: 7,
      withdrawal_id: null,
      merchant_id: 2000,
      reference: 'po-1',
      amount: 10_000,
      currency: 'NGN',
      request_status: 'pending',
      withdrawal_status: null,
      payment_gateway: 'naira_gateway',
      payout_method: 'bank_transfer',
      // Where it pays (Hardening 2 item 5), its absent proto3 optionals as null.
      destination: {
        kind: 'bank_account',
        bank_name: 'Access Bank',
        institution_id: null,
        account_number_masked: '******3456',
        account_name: null,
        gateway_account_id: null,
        fingerprint: 'pdf_1',
      },
      approved_at: null,
      rejected_at: null,
      rejection_reason: null,
      paid_at: null,
      failed_at: null,
      failure_reason: null,
      created_at: '2026-11-23T10:00:00.000Z',
    });
    for (const payload of [
      { amount: 0, currency: 'NGN', reference: 'x' },
      // A reference must fit a path parameter (approve, reject, settlement).
      { amount: 1, currency: 'NGN', reference: 'r'.repeat(101) },
    ]) {
      const bad = await t.app.inject({ method: 'POST', url: partner('/marketplace/payouts'), headers, payload });
      expect(bad.statusCode).toBe(400);
    }
  });

  it('approve and reject: user token + X-Environment, the 4.10 response fields only, 7.8 statuses', async () => {
    const approved = {
      ...wirePayout,
      withdrawal_id: 7,
      request_status: 'approved',
      withdrawal_status: 'payout_pending',
      approved_at: '2026-11-23T10:05:00.000Z',
      status: 'approved',
    };
    const rejected = {
      ...wirePayout,
      request_status: 'rejected',
      status: 'rejected',
      rejection_reason: 'Wrong account',
      rejected_at: '2026-11-23T10:06:00.000Z',
    };
    const t = await testGateway({
      marketplace: {
        ApprovePayout: (req: { reference: string }) => {
          if (req.reference === 'taken') throw new PlatformError('PAYOUT_ALREADY_CLAIMED');
          if (req.reference === 'other') throw new PlatformError('PERMISSION_DENIED');
          if (req.reference === 'gone') throw new PlatformError('PAYOUT_REQUEST_NOT_FOUND');
          return approved;
        },
        RejectPayout: () => rejected,
      },
    });
    const dash = { 'x-id-key': await t.userToken(1000), 'x-environment': 'live' };
    const url = (ref: string, action: string) => `/api/v1/marketplace/merchants/2000/payouts/${ref}/${action}`;
    const ok = await t.app.inject({ method: 'POST', url: url('po-1', 'approve'), headers: dash });
    expect(ok.json().data).toEqual({
      payout_request_id: 7,
      withdrawal_id: 7,
      merchant_id: 2000,
      reference: 'po-1',
      amount: 10_000,
      currency: 'NGN',
      request_status: 'approved',
      withdrawal_status: 'payout_pending',
      payment_gateway: 'naira_gateway',
      payout_method: 'bank_transfer',
      approved_at: '2026-11-23T10:05:00.000Z',
    });
    expect(t.calls[0]!.request).toEqual({ merchant_id: 2000, reference: 'po-1', environment: 'live' });
    for (const [ref, status, message] of [
      ['taken', 409, 'Already claimed'],
      ['other', 403, 'Permission denied'],
      ['gone', 404, 'Payout request not found'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: url(ref, 'approve'), headers: dash });
      expect([res.statusCode, res.json().message]).toEqual([status, message]);
    }
    expect((await t.app.inject({ method: 'POST', url: url('po-1', 'approve'), headers: {} })).statusCode).toBe(401);

    const rej = await t.app.inject({
      method: 'POST',
      url: url('po-1', 'reject'),
      headers: dash,
      payload: { reason: 'Wrong account' },
    });
    expect(rej.json().data).toEqual({
      payout_request_id: 7,
      merchant_id: 2000,
      reference: 'po-1',
      status: 'rejected',
      rejection_reason: 'Wrong account',
      rejected_at: '2026-11-23T10:06:00.000Z',
    });
    for (const reason of ['no', 'x'.repeat(501)]) {
      const res = await t.app.inject({
        method: 'POST',
        url: url('po-1', 'reject'),
        headers: dash,
        payload: { reason },
      });
      expect(res.statusCode).toBe(400);
    }
  });

  it('7.8 400 Approval failed: an approval that cannot be validated names what to fix and reaches no service', async () => {
    const t = await testGateway();
    const token = await t.userToken(1000);
    const url = (merchant: string, ref: string) => `/api/v1/marketplace/merchants/${merchant}/payouts/${ref}/approve`;
    for (const [merchant, ref, env, param] of [
      ['abc', 'po-1', 'live', 'merchantId'],
      ['0', 'po-1', 'live', 'merchantId'],
      ['2000', 'po-1', 'staging', 'X-Environment'],
      ['2000', 'po-1', undefined, 'X-Environment'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: url(merchant, ref),
        headers: { 'x-id-key': token, ...(env ? { 'x-environment': env } : {}) },
      });
      expect([res.statusCode, res.json().message, res.json().error.code, res.json().error.param]).toEqual([
        400,
        'Approval failed',
        'APPROVAL_FAILED',
        param,
      ]);
      expect(res.json().error.detail).toEqual(expect.any(String));
    }
    // Reject's errors are not shown in the spec: its validation keeps the general answer.
    const reject = await t.app.inject({
      method: 'POST',
      url: '/api/v1/marketplace/merchants/abc/payouts/po-1/reject',
      headers: { 'x-id-key': token, 'x-environment': 'live' },
      payload: { reason: 'Wrong account' },
    });
    expect([reject.statusCode, reject.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(t.calls).toEqual([]);
  });

  it('settlement: the sandbox helper and the admin route go to payments SettlePayout', async () => {
    const t = await testGateway({
      payments: {
        SettlePayout: () => ({
          ...wirePayout,
          request_status: 'approved',
          withdrawal_status: 'paid',
          withdrawal_id: 7,
        }),
      },
    });
    const sandbox = await t.app.inject({ method: 'POST', url: partner('/sandbox/payouts/po-1/paid'), headers });
    expect(sandbox.json().data).toMatchObject({
      amount: 10_000,
      currency: 'NGN',
      withdrawal_status: 'paid',
      paid_at: null,
    });
    expect(t.calls[0]!.request).toMatchObject({ reference: 'po-1', outcome: 'paid' });
    expect(
      (await t.app.inject({ method: 'POST', url: partner('/sandbox/payouts/po-1/refunded'), headers })).statusCode,
    ).toBe(400);
    const admin = { 'x-id-key': await t.adminToken() };
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/admin/payouts/2000/po-1/failed', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(t.calls[1]!.request).toMatchObject({ merchant_id: 2000, reference: 'po-1', outcome: 'failed' });
  });
});
