import { status } from '@grpc/grpc-js';
import { PlatformError } from '@ppay/kernel';
import { RemoteCallError } from '@ppay/runtime';
import { LIVE_KEY, operatorOf, SANDBOX_KEY, testGateway } from './gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };
const token = 'onb_' + 'A'.repeat(32);

const inHouseSubmission = {
  provider: 'service',
  id: 7,
  status: 'pending_review',
  business_type: 'individual',
  legal_name: 'John Adebayo',
  id_country: 'NG',
  bank_name: 'Access Bank',
  bank_account_number: '******3456',
  bank_account_name: 'ADEBAYO JOHN',
  settlement_currency: 'NGN',
  country_mismatch: false,
  submitted_at: '2026-11-23T10:00:00.000Z',
  merchant_id: 1001,
  payouts_enabled: false,
  // reviewed_at, rejection_reason: absent proto3 optionals
};

const connected = {
  provider: 'gateway',
  submission_id: 8,
  gateway_account_id: 'acct_x',
  onboarding_token: token,
  client_secret: 'acct_x_secret_y',
  publishable_key: 'pk_test_platform',
  settlement_currency: 'USD',
  gateway_region: 'US',
  status: 'pending_onboarding',
  expires_at: '2026-11-23T10:10:00.000Z',
};

describe('KYC and payout routes over a fake kyc service (app.inject)', () => {
  it('submits in-house KYC and answers exactly the spec 4.9 fields, nulls included', async () => {
    const t = await testGateway({
      kyc: { SubmitKyc: () => ({ submission: inHouseSubmission, message: 'KYC submitted successfully.' }) },
    });
    const body = { id_country: 'NG', account_type: 'individual', owner: { first_name: 'John' } };
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/merchants/1001/kyc'),
      headers,
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const { merchant_id: _m, payouts_enabled: _p, ...spec } = inHouseSubmission;
    expect(res.json()).toEqual({
      success: true,
      message: 'KYC submitted successfully.',
      data: { ...spec, reviewed_at: null, rejection_reason: null },
    });
    expect(t.calls[0]).toMatchObject({
      service: 'kyc',
      method: 'SubmitKyc',
      mode: 'sandbox',
      merchantId: '1000',
      request: { ...body, merchant_id: 1001 },
    });
  });

  it('the connected route answers an onboarding_url on this gateway, never cached; an Idempotency-Key replay keeps the secret sealed', async () => {
    const t = await testGateway(
      { kyc: { SubmitKyc: () => ({ onboarding: connected, message: 'Redirect the merchant' }) } },
      { PUBLIC_BASE_URL: 'https://pay.example.com/' },
    );
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: partner('/marketplace/merchants/1001/kyc'),
        headers: { ...headers, 'idempotency-key': 'kyc-1' },
        payload: { country: 'US', return_url: 'https://a.example.com', refresh_url: 'https://a.example.com/r' },
      });
    const res = await send();
    expect(res.json().data).toEqual({
      provider: 'gateway',
      submission_id: 8,
      gateway_account_id: 'acct_x',
      onboarding_url: `https://pay.example.com/onboarding/${token}`,
      client_secret: 'acct_x_secret_y',
      publishable_key: 'pk_test_platform',
      settlement_currency: 'USD',
      gateway_region: 'US',
    });
    expect(res.headers['cache-control']).toBe('no-store');
    // Like a new API key, the shown-once secret sits in the idempotency store only sealed: a retry is
    // replayed (the same account and secret) without reaching kyc again.
    expect(JSON.stringify([...t.kv.entries.values()].map((e) => Buffer.from(e.value).toString()))).not.toContain(
      'acct_x_secret_y',
    );
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data.client_secret).toBe('acct_x_secret_y');
    expect(t.calls.filter((c) => c.method === 'SubmitKyc')).toHaveLength(1);
  });

  it('describes and refuses unknown fields, over-long strings and numbers where strings belong', async () => {
    const t = await testGateway({ marketplace: operatorOf(1001) });
    for (const [payload, param] of [
      [{ id_country: 'NG', colour: 'red' }, 'colour'],
      [{ owner: { first_name: 'x'.repeat(201) } }, 'owner.first_name'],
      [{ bank_account: { account_number: 12345 } }, 'bank_account.account_number'],
      [{ preferred_currency: 'NGN' }, 'preferred_currency'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: partner('/marketplace/merchants/1001/kyc'),
        headers,
        payload,
      });
      expect([res.statusCode, res.json().error.param]).toEqual([400, param]);
    }
    // Only the operator's access was asked (before the 400); kyc never was.
    expect(t.calls.every((c) => c.service === 'marketplace' && c.method === 'DescribeSubMerchant')).toBe(true);
  });

  it('words a missing or invalid key as spec 7.2 / 7.3 do: 401 Unauthorized', async () => {
    const t = await testGateway();
    for (const [method, url, key] of [
      ['POST', '/marketplace/merchants/1001/kyc', undefined],
      ['GET', '/marketplace/payout/banks', 'pk_live_x'],
      ['PATCH', '/marketplace/merchants/1001/payout', undefined],
    ] as const) {
      const res = await t.app.inject({
        method,
        url: partner(url),
        headers: key ? { 'x-api-key': key } : {},
        payload: method === 'GET' ? undefined : {},
      });
      expect([url, res.statusCode, res.json().message, res.json().error.code]).toEqual([
        url,
        401,
        'Unauthorized',
        'INVALID_API_KEY',
      ]);
    }
  });

  it('passes the kyc service’s 7.2 / 7.4 errors through with their status and message', async () => {
    const t = await testGateway({
      kyc: {
        SubmitKyc: () => {
          throw new RemoteCallError(
            'kyc',
            'SubmitKyc',
            status.NOT_FOUND,
            'Active merchant relationship not found',
            'RELATIONSHIP_NOT_FOUND',
          );
        },
        UpdatePayout: () => {
          throw new PlatformError('PAYOUT_NOT_SET_UP');
        },
      },
    });
    const kyc = await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/merchants/5/kyc'),
      headers,
      payload: {},
    });
    expect([kyc.statusCode, kyc.json().message]).toEqual([404, 'Active merchant relationship not found']);
    const payout = await t.app.inject({
      method: 'PATCH',
      url: partner('/marketplace/merchants/5/payout'),
      headers,
      payload: { account_name: 'X' },
    });
    expect([payout.statusCode, payout.json().message]).toEqual([400, 'Payout has not been set up for this merchant']);
  });

  it('answers the payout branch of the merchant: bank fields, or an onboarding link', async () => {
    const bank = {
      kind: 'bank_account',
      merchant_id: 1001,
      baseline_currency: 'NGN',
      country: 'NG',
      bank_name: 'Access Bank',
      bank_account_number: '******3456',
      bank_account_name: 'ADEBAYO JOHN',
      institution_id: '5b49f15e-3763-41b5-afbf-7360d9fb67f3',
      account_number_type: 'bank_account_number',
      settlement_currency: 'NGN',
      change_status: 'applied',
    };
    const t = await testGateway({
      kyc: {
        SetupPayout: () => bank,
        UpdatePayout: (req: { merchant_id: number }) =>
          req.merchant_id === 1001
            ? { ...bank, bank_account_name: 'SOMEONE ELSE', change_status: 'pending_review' }
            : {
                kind: 'connected_account',
                merchant_id: 1002,
                baseline_currency: 'USD',
                country: 'US',
                settlement_currency: 'USD',
                client_secret: 's',
                publishable_key: 'pk_test_platform',
                onboarding_token: token,
              },
      },
    });
    // A holder name that needs a reviewer says so (Hardening 2 item 5).
    const pending = await t.app.inject({
      method: 'PATCH',
      url: partner('/marketplace/merchants/1001/payout'),
      headers,
      payload: { account_name: 'Someone Else' },
    });
    expect([pending.json().data.change_status, pending.json().message]).toEqual([
      'pending_review',
      'Payout account change submitted for review: the account name does not match the KYC legal name',
    ]);
    const setup = await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/merchants/1001/payout'),
      headers,
      payload: {},
    });
    const { kind: _kind, ...fields } = bank;
    expect(setup.json()).toEqual({ success: true, message: 'Payout account set up', data: fields });
    const update = await t.app.inject({
      method: 'PATCH',
      url: partner('/marketplace/merchants/1002/payout'),
      headers,
      payload: { callback_url: 'https://shop.example.com/payouts' },
    });
    expect(update.json().data).toEqual({
      merchant_id: 1002,
      baseline_currency: 'USD',
      country: 'US',
      settlement_currency: 'USD',
      client_secret: 's',
      publishable_key: 'pk_test_platform',
      onboarding_url: `http://localhost:8080/onboarding/${token}`,
    });
    expect(update.headers['cache-control']).toBe('no-store');
  });

  it('lists payout banks with the currency filter passed through', async () => {
    const banks = [
      {
        institution_id: '5b49f15e-3763-41b5-afbf-7360d9fb67f3',
        name: 'Access Bank',
        currency: 'NGN',
        country_iso_code: 'NG',
        account_number_type: 'bank_account_number',
      },
    ];
    const t = await testGateway({ kyc: { ListPayoutBanks: () => ({ banks }) } });
    const res = await t.app.inject({ method: 'GET', url: partner('/marketplace/payout/banks?currency=NGN'), headers });
    expect(res.json()).toEqual({ success: true, data: banks });
    expect(t.calls[0]!.request).toEqual({ currency: 'NGN' });
  });

  it('answers a currency outside the directory as kyc does, not with the pattern that refused it', async () => {
    const t = await testGateway({ kyc: { ListPayoutBanks: () => ({ banks: [] }) }, marketplace: operatorOf() });
    const res = await t.app.inject({ method: 'GET', url: partner('/marketplace/payout/banks?currency=USD'), headers });
    expect([res.statusCode, res.json().message, res.json().error.param]).toEqual([
      400,
      'currency must be one of GHS, KES, NGN, ZAR',
      'currency',
    ]);
    expect(t.calls.filter((c) => c.method === 'ListPayoutBanks')).toEqual([]);
  });

  it('routes the sandbox decision helper with its reason', async () => {
    const t = await testGateway({
      kyc: {
        DecideSandboxKyc: () => ({
          merchant_id: 1001,
          status: 'rejected',
          country_mismatch: false,
          payouts_enabled: false,
        }),
      },
      marketplace: operatorOf(1001),
    });
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/kyc/7/reject'),
      headers,
      payload: { reason: 'Blurry document' },
    });
    expect(res.json().data).toMatchObject({ status: 'rejected', id: null, payouts_enabled: false });
    expect(t.calls[0]).toMatchObject({
      mode: 'sandbox',
      request: { submission_id: 7, action: 'reject', reason: 'Blurry document' },
    });
    const bad = await t.app.inject({ method: 'POST', url: partner('/sandbox/kyc/7/delete'), headers, payload: {} });
    expect(bad.statusCode).toBe(400);
    const live = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/kyc/7/delete'),
      headers: { 'x-api-key': LIVE_KEY },
      payload: {},
    });
    expect([live.statusCode, t.calls.filter((c) => c.service === 'kyc').length]).toEqual([403, 1]);
  });
});

describe('admin API authentication', () => {
  it('needs an admin token: none, a merchant user and a token without MFA are 401, one without the role 403', async () => {
    const t = await testGateway({
      kyc: { ListKycReviews: () => ({ submissions: [], pagination: { page: 1, limit: 20, total: 0, pages: 0 } }) },
    });
    const url = '/api/v1/admin/kyc/submissions';
    const none = await t.app.inject({ method: 'GET', url });
    expect([none.statusCode, none.json().error.code]).toEqual([401, 'UNAUTHORIZED']);
    const apiKey = await t.app.inject({ method: 'GET', url, headers });
    expect(apiKey.statusCode).toBe(401);
    // A dashboard token, even with the role, is not an admin token (its audience): Hardening 2 item 8.
    for (const token of [
      await t.userToken(1000),
      await t.tokenWith({ role: 'platform_admin', acr: 'mfa' }),
      await t.adminToken({ acr: undefined }),
      await t.adminToken({}, { issuedAt: Math.floor(Date.now() / 1000) - 3700 }),
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-id-key': token } });
      expect([res.statusCode, res.json().error.code]).toEqual([401, 'UNAUTHORIZED']);
    }
    const wrongRole = await t.app.inject({
      method: 'GET',
      url,
      headers: { 'x-id-key': await t.adminToken({ role: 'support' }) },
    });
    expect([wrongRole.statusCode, wrongRole.json().message]).toEqual([
      403,
      'This endpoint is restricted to platform administrators',
    ]);
    expect(t.calls).toEqual([]);
    const admin = await t.app.inject({
      method: 'GET',
      url: `${url}?status=rejected&limit=5`,
      headers: { 'x-id-key': await t.adminToken({}, { subject: 'usr_ada' }) },
    });
    expect(admin.json()).toEqual({
      success: true,
      data: { submissions: [], pagination: { page: 1, limit: 20, total: 0, pages: 0 } },
    });
    expect(t.calls[0]).toMatchObject({
      method: 'ListKycReviews',
      request: { status: 'rejected', page: { page: 1, limit: 5 } },
    });
    const roles = await t.app.inject({
      method: 'GET',
      url,
      headers: { 'x-id-key': await t.adminToken({ role: undefined, roles: ['platform_admin'] }) },
    });
    expect(roles.statusCode).toBe(200);
  });

  it('serialises a review with nested nulls filled in', async () => {
    const review = {
      id: 7,
      merchant_id: 1001,
      marketplace_id: 1000,
      status: 'pending_review',
      provider: 'service',
      business_type: 'individual',
      legal_name: 'John Adebayo',
      id_country: 'NG',
      bank_name: 'Access Bank',
      bank_account_number: '******3456',
      bank_account_name: 'ADEBAYO JOHN',
      institution_id: 'x',
      settlement_currency: 'NGN',
      country_mismatch: false,
      submitted_at: '2026-11-23T10:00:00.000Z',
      review: {
        decision: 'manual_review',
        reasons: ['name_mismatch:0.40'],
        name_match_score: 0.4,
        name_enquiry: { provider: 'sandbox', outcome: 'found', account_name: 'NGOZI EZE' },
      },
      owner: {
        first_name: 'John',
        last_name: 'Adebayo',
        date_of_birth: '1990-05-17',
        id_type: 'nin',
        id_number: '*******8901',
      },
      business: null,
      history: [
        { action: 'submit', from_status: 'not_started', to_status: 'pending_review', actor: 'operator', at: 'now' },
      ],
      history_summary: {
        dropped: 3,
        first_at: '2026-11-01T10:00:00.000Z',
        last_at: '2026-11-02T10:00:00.000Z',
        actions: [{ action: 'payout_account_updated', count: 3 }],
      },
      personal_data_unavailable: false,
      payout_change: {
        bank_name: 'Access Bank',
        account_number_masked: '******0017',
        account_name: 'ADEBAYO JOHN',
        name_match_score: 1,
        reason: 'bank_name_mismatch:0.00',
        requested_at: '2026-11-23T10:05:00.000Z',
        requested_by: 'operator:1000',
        name_enquiry: { provider: 'sandbox', outcome: 'found', account_name: 'SANDBOX OTHER HOLDER' },
      },
    };
    const t = await testGateway({ kyc: { GetKycReview: () => review } });
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/kyc/submissions/7',
      headers: { 'x-id-key': await t.adminToken() },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      reviewed_at: null,
      rejection_reason: null,
      owner: { phone_number: null, email: null, id_document_url: null, selfie_url: null },
      business: null,
      history: [{ actor_id: null, reason: null }],
      review: { name_enquiry: { provider: 'sandbox', outcome: 'found', account_name: 'NGOZI EZE' } },
      history_summary: { dropped: 3, actions: [{ action: 'payout_account_updated', count: 3 }] },
      // What the bank said about a new payout account number, for the reviewer deciding the change.
      payout_change: {
        reason: 'bank_name_mismatch:0.00',
        name_enquiry: { provider: 'sandbox', outcome: 'found', account_name: 'SANDBOX OTHER HOLDER' },
      },
    });
  });
});

describe('hosted onboarding page', () => {
  const view = {
    state: 'active',
    purpose: 'onboarding',
    mode: 'sandbox',
    merchant_id: 1001,
    business_name: '<b>Ada</b> & Co',
    country: 'US',
    business_type: 'individual',
    settlement_currency: 'USD',
    gateway_region: 'US',
    gateway_account_id: 'acct_x',
    return_url: 'https://shop.example.com/return',
    refresh_url: 'https://shop.example.com/refresh',
    expires_at: '2026-11-23T10:10:00.000Z',
    status: 'pending_onboarding',
    redirect_origins: ['https://shop.example.com'],
  };

  it('renders escaped, under a strict CSP; an expired link goes to refresh_url; the form posts redirect', async () => {
    let state = 'active';
    const t = await testGateway({
      kyc: {
        GetOnboardingLink: () => ({ ...view, state }),
        FinishOnboardingLink: (req: { outcome: string }) => ({
          state: 'done',
          redirect_url: req.outcome === 'abandon' ? view.return_url : view.return_url,
        }),
      },
    });
    const page = await t.app.inject({ method: 'GET', url: `/onboarding/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("form-action 'self' https://shop.example.com");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain('&lt;b&gt;Ada&lt;/b&gt; &amp; Co');
    expect(page.body).not.toContain('<script');
    state = 'expired';
    const expired = await t.app.inject({ method: 'GET', url: `/onboarding/${token}` });
    expect([expired.statusCode, expired.headers.location]).toEqual([303, view.refresh_url]);
    const post = await t.app.inject({
      method: 'POST',
      url: `/onboarding/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=complete',
    });
    expect([post.statusCode, post.headers.location]).toEqual([303, view.return_url]);
    expect(t.calls.at(-1)).toMatchObject({ method: 'FinishOnboardingLink', request: { token, outcome: 'complete' } });
    const bad = await t.app.inject({
      method: 'POST',
      url: `/onboarding/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=steal',
    });
    expect(bad.statusCode).toBe(400);
    const notToken = await t.app.inject({ method: 'GET', url: '/onboarding/cs_123' });
    expect(notToken.statusCode).toBe(404);
  });

  it("a live link sends the merchant on (303) to the gateway's onboarding, naming itself as the way back", async () => {
    const gatewayUrl = 'https://connect.stripe.com/setup/s/acct_live1/abc';
    const t = await testGateway({
      kyc: { GetOnboardingLink: () => ({ ...view, mode: 'live', gateway_url: gatewayUrl }) },
    });
    const page = await t.app.inject({ method: 'GET', url: `/onboarding/${token}` });
    expect([page.statusCode, page.headers.location]).toEqual([303, gatewayUrl]);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(t.calls.at(-1)).toMatchObject({
      method: 'GetOnboardingLink',
      request: { token, here_url: `http://localhost:8080/onboarding/${token}` },
    });
  });
});
