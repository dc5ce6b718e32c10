import { PlatformError } from '@ppay/kernel';
import { operatorOf, SANDBOX_KEY, testGateway } from './gateway-kit.test-util';

const url = (id: string) => `/api/v1/partner/marketplace/merchants/${id}/delete`;
const headers = { 'x-api-key': SANDBOX_KEY };

describe('DELETE /marketplace/merchants/{merchantId}/delete over a fake marketplace (spec 4.9, 7.6)', () => {
  it('answers gateway_skipped, a null gateway_balance when there is no account, and the message', async () => {
    const t = await testGateway({
      marketplace: {
        DeleteMerchant: () => ({ gateway_skipped: false, message: 'Merchant and all its business data deleted' }),
      },
    });
    const res = await t.app.inject({ method: 'DELETE', url: url('1001'), headers });
    expect([res.statusCode, res.json()]).toEqual([
      200,
      {
        success: true,
        message: 'Merchant and all its business data deleted',
        data: { gateway_skipped: false, gateway_balance: null },
      },
    ]);
    expect(t.calls).toEqual([
      expect.objectContaining({
        service: 'marketplace',
        method: 'DeleteMerchant',
        request: { merchant_id: 1001 },
        mode: 'sandbox',
      }),
    ]);
  });

  it('answers a kept account with its balance in standard units', async () => {
    const t = await testGateway({
      marketplace: {
        DeleteMerchant: () => ({
          gateway_skipped: true,
          gateway_balance: { amount: { amount: 1350, currency: 'USD' } },
          message: 'Merchant business data deleted. The gateway account was kept …',
        }),
      },
    });
    const res = await t.app.inject({ method: 'DELETE', url: url('1001'), headers });
    expect(res.json().data).toEqual({ gateway_skipped: true, gateway_balance: { amount: 13.5, currency: 'USD' } });
  });

  it.each([
    ['400 Invalid merchant ID (not a number)', 'abc', 400, 'Invalid merchant ID'],
    ['400 Invalid merchant ID (zero)', '0', 400, 'Invalid merchant ID'],
  ])(
    '%s: refused before the deletion is asked for (only the operator check is)',
    async (_name, id, status, message) => {
      const t = await testGateway({ marketplace: operatorOf(1001) });
      const res = await t.app.inject({ method: 'DELETE', url: url(id), headers });
      expect([res.statusCode, res.json().message, res.json().error.code]).toEqual([
        status,
        message,
        'INVALID_MERCHANT_ID',
      ]);
      expect(t.calls.map((c) => c.method)).toEqual(['GetAccount']);
    },
  );

  it('401 Unauthorized without a key or with an unknown one', async () => {
    const t = await testGateway();
    for (const key of [undefined, 'pk_sandbox_unknown']) {
      const res = await t.app.inject({ method: 'DELETE', url: url('1001'), headers: key ? { 'x-api-key': key } : {} });
      expect([res.statusCode, res.json().message]).toEqual([401, 'Unauthorized']);
    }
    expect(t.calls.filter((c) => c.service === 'marketplace')).toEqual([]);
  });

  it.each([
    ['MARKETPLACE_OPERATOR_REQUIRED', 403, 'This endpoint is restricted to marketplace operators'],
    ['MERCHANT_RELATIONSHIP_NOT_FOUND', 404, 'Merchant relationship not found'],
    ['MERCHANT_DELETION_INCOMPLETE', 400, 'Failed to delete merchant business data'],
    ['INVALID_MERCHANT_ID', 400, 'Invalid merchant ID'],
  ] as const)('passes %s through as %d "%s" (spec 7.6)', async (code, status, message) => {
    const t = await testGateway({
      marketplace: {
        DeleteMerchant: () => {
          throw new PlatformError(code, undefined, { detail: 'Not yet deleted by: kyc.' });
        },
      },
    });
    const res = await t.app.inject({ method: 'DELETE', url: url('1001'), headers });
    expect([res.statusCode, res.json().message, res.json().error.code]).toEqual([status, message, code]);
    if (code === 'MERCHANT_DELETION_INCOMPLETE') expect(res.json().error.detail).toContain('kyc');
  });

  it('gives the call the longer deadline (it waits for every service)', async () => {
    const t = await testGateway({ marketplace: { DeleteMerchant: () => ({ gateway_skipped: false, message: 'ok' }) } });
    await t.app.inject({ method: 'DELETE', url: url('1001'), headers });
    expect(t.calls[0]!.deadlineMs).toBe(15_000); // GRPC_PAYMENT_DEADLINE_MS default
  });
});
