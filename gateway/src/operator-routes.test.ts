import { status } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, type ErrorCode } from '@ppay/kernel';
import { RemoteCallError } from '@ppay/runtime';
import { SANDBOX_KEY, testGateway, type FakeServices } from './gateway-kit.test-util';

/**
 * Hardening 2 item 12: on operator routes, authorization and the sub-merchant's existence are answered
 * before anything about the request's params, query or body.
 */
const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };
const OPERATOR_ONLY = 'This endpoint is restricted to marketplace operators';

const refusal = (method: string, code: ErrorCode, grpcStatus: number) => () => {
  throw new RemoteCallError('marketplace', method, grpcStatus, ERROR_CATALOGUE[code].message, code);
};

/** Marketplace as a non-operator's calls meet it. */
const nonOperator: FakeServices = {
  marketplace: {
    GetAccount: () => ({ merchant_id: 1000, is_marketplace_operator: false }),
    DescribeSubMerchant: refusal('DescribeSubMerchant', 'MARKETPLACE_OPERATOR_REQUIRED', status.PERMISSION_DENIED),
  },
};

/** An operator whose only sub-merchant is 1001 (active); 1002 is suspended; anything else is not its own. */
const operator = (extra: FakeServices = {}): FakeServices => ({
  ...extra,
  marketplace: {
    GetAccount: () => ({ merchant_id: 1000, is_marketplace_operator: true }),
    DescribeSubMerchant: (req: { sub_merchant_id: number }) => {
      if (req.sub_merchant_id === 1001 || req.sub_merchant_id === 1002) {
        const active = req.sub_merchant_id === 1001;
        return {
          active,
          status: active ? 'active' : 'suspended',
          relationship_id: 1,
          marketplace_id: 1000,
          merchant: { id: req.sub_merchant_id, country: 'NG', baseline_currency: 'NGN', business_name: 'Sub' },
        };
      }
      return refusal('DescribeSubMerchant', 'RELATIONSHIP_NOT_FOUND', status.NOT_FOUND)();
    },
    ...extra.marketplace,
  },
});

/** A body every KYC schema refuses (an unknown owner field, a last name of the wrong type). */
const badKyc = {
  id_country: 'NG',
  account_type: 'individual',
  owner: { first_name: 'Ada', last_name: 7, nickname: 'x' },
};

describe('operator routes: 403 and 404 before any 400 (Hardening 2 item 12)', () => {
  it('answers a non-operator 403 whatever it sent: body, query or path parameter', async () => {
    const t = await testGateway(nonOperator);
    const requests = [
      { method: 'POST', url: '/marketplace/merchants/1001/kyc', payload: badKyc },
      { method: 'POST', url: '/marketplace/merchants/abc/kyc', payload: badKyc },
      { method: 'PATCH', url: '/marketplace/merchants/1001/payout', payload: { account_number: 12 } },
      { method: 'POST', url: '/marketplace/merchants/1001/payout', payload: { nope: true } },
      { method: 'PATCH', url: '/marketplace/merchants/1001/commission', payload: { commission_rate: 'ten' } },
      { method: 'POST', url: '/marketplace/merchants', payload: { email: 5 } },
      { method: 'POST', url: '/marketplace/setup', payload: {} },
      { method: 'POST', url: '/marketplace/invitations/cancel', payload: {} },
      { method: 'GET', url: '/marketplace/merchants?limit=1000' },
      { method: 'GET', url: '/marketplace/payout/banks?currency=' + 'N'.repeat(500) },
      { method: 'DELETE', url: '/marketplace/merchants/abc/delete' },
      { method: 'DELETE', url: '/marketplace/merchants/0' },
      { method: 'POST', url: '/marketplace/merchants/-1/reactivate' },
      { method: 'GET', url: '/marketplace/merchants/x/balance' },
      { method: 'GET', url: '/marketplace/merchants/x/kyc' },
      { method: 'POST', url: '/sandbox/kyc/7/approve', payload: { reason: 9 } },
    ] as const;
    for (const r of requests) {
      const res = await t.app.inject({ ...r, url: partner(r.url), headers });
      expect([r.method, r.url, res.statusCode, res.json().error.code, res.json().message]).toEqual([
        r.method,
        r.url,
        403,
        'MARKETPLACE_OPERATOR_REQUIRED',
        OPERATOR_ONLY,
      ]);
    }
    // Only marketplace was asked: no request reached kyc.
    expect(t.calls.every((c) => c.service === 'marketplace')).toBe(true);
  });

  it("answers an operator the route's 404 for a sub-merchant that is not its own, before the body's 400", async () => {
    const t = await testGateway(operator());
    const cases = [
      ['POST', '/marketplace/merchants/4242/kyc', badKyc, 'RELATIONSHIP_NOT_FOUND'],
      ['PATCH', '/marketplace/merchants/4242/payout', { account_number: 12 }, 'RELATIONSHIP_NOT_FOUND'],
      ['PATCH', '/marketplace/merchants/4242/commission', { commission_rate: 500 }, 'RELATIONSHIP_NOT_FOUND'],
      // KYC and payout act on an active relationship only: a suspended one is "not found" too.
      ['POST', '/marketplace/merchants/1002/kyc', badKyc, 'RELATIONSHIP_NOT_FOUND'],
    ] as const;
    for (const [method, url, payload, code] of cases) {
      const res = await t.app.inject({ method, url: partner(url), headers, payload });
      expect([url, res.statusCode, res.json().error.code]).toEqual([url, 404, code]);
      expect(res.json().message).toBe('Active merchant relationship not found');
    }
    // Commission acts on a suspended sub-merchant too: its own mistake is then the 400.
    const suspended = await t.app.inject({
      method: 'PATCH',
      url: partner('/marketplace/merchants/1002/commission'),
      headers,
      payload: { commission_rate: 500 },
    });
    expect(suspended.statusCode).toBe(400);
  });

  it('answers the operator its 400 once it may act, and asks nothing extra of a valid request', async () => {
    const t = await testGateway(
      operator({ kyc: { SubmitKyc: () => ({ submission: null, onboarding: null, message: 'x' }) } }),
    );
    const bad = await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/merchants/1001/kyc'),
      headers,
      payload: badKyc,
    });
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const badId = await t.app.inject({ method: 'DELETE', url: partner('/marketplace/merchants/abc/delete'), headers });
    expect([badId.statusCode, badId.json().error.code]).toEqual([400, 'INVALID_MERCHANT_ID']);

    t.calls.length = 0;
    await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/merchants/1001/kyc'),
      headers,
      payload: { country: 'US', return_url: 'https://a.example.com', refresh_url: 'https://a.example.com/r' },
    });
    expect(t.calls.map((c) => `${c.service}.${c.method}`)).toEqual(['kyc.SubmitKyc']);
  });

  it('answers 503 when marketplace cannot say who may act (never the 400, never a 500)', async () => {
    const t = await testGateway({
      marketplace: {
        DescribeSubMerchant: () => {
          throw new RemoteCallError('marketplace', 'DescribeSubMerchant', status.UNAVAILABLE, 'down');
        },
      },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/merchants/1001/kyc'),
      headers,
      payload: badKyc,
    });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('leaves routes that are not operator routes as they were (a sub-merchant asking for a payout)', async () => {
    const t = await testGateway(nonOperator);
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/marketplace/payouts'),
      headers,
      payload: { amount: 'ten' },
    });
    expect(res.statusCode).toBe(400);
    expect(t.calls).toEqual([]);
  });
});
