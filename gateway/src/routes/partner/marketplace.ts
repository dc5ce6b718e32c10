import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { StringEnum } from '../../http/schemas';
import { generic, md, MerchantIdParams } from './shared';

type MerchantRequest = FastifyRequest<{ Params: Static<typeof MerchantIdParams> }>;

/** Spec 4.9 (marketplace operators) and the operations it names without shapes. */
export async function registerMarketplaceRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace, kyc } = deps.clients;
  const tags = ['Marketplace'];
  const SetupBody = Type.Object({
    marketplace_name: Type.String({ minLength: 1, maxLength: 200 }),
    default_commission_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  });
  app.post<{ Body: Static<typeof SetupBody> }>(
    '/marketplace/setup',
    generic(tags, 'Enable marketplace mode', { body: SetupBody }),
    async (req) => ok(await marketplace.call('SetupMarketplace', { ...req.body }, md(req))),
  );
  const LinkBody = Type.Object({
    merchant_id: Type.Optional(Type.Integer({ minimum: 1 })),
    email: Type.Optional(Type.String()),
    business_name: Type.Optional(Type.String()),
    country: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })),
    baseline_currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
    commission_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  });
  app.post<{ Body: Static<typeof LinkBody> }>(
    '/marketplace/merchants',
    generic(tags, 'Create a sub-merchant or link an existing business', { body: LinkBody }),
    async (req) => ok(await marketplace.call('LinkMerchant', { ...req.body }, md(req))),
  );
  const ListQuery = Type.Object({
    status: StringEnum(['active', 'suspended'] as const, { default: 'active' }),
    page: Type.Integer({ minimum: 1, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  });
  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/marketplace/merchants',
    generic(tags, 'List sub-merchants', { querystring: ListQuery }),
    async (req) =>
      ok(
        await marketplace.call(
          'ListMerchants',
          { status: req.query.status, page: { page: req.query.page, limit: req.query.limit } },
          md(req),
        ),
      ),
  );
  app.delete(
    '/marketplace/merchants/:merchantId',
    generic(tags, 'Suspend (remove) a sub-merchant', { params: MerchantIdParams }),
    async (req: MerchantRequest) => {
      const res = await marketplace.call('RemoveMerchant', { merchant_id: req.params.merchantId }, md(req));
      return { success: true, message: res.message };
    },
  );
  app.post(
    '/marketplace/merchants/:merchantId/reactivate',
    generic(tags, 'Reactivate a suspended sub-merchant', { params: MerchantIdParams }),
    async (req: MerchantRequest) =>
      ok(await marketplace.call('ReactivateMerchant', { merchant_id: req.params.merchantId }, md(req))),
  );
  app.delete(
    '/marketplace/merchants/:merchantId/delete',
    generic(tags, 'Permanently delete a sub-merchant and its data', { params: MerchantIdParams }),
    async (req: MerchantRequest) =>
      ok(await marketplace.call('DeleteMerchant', { merchant_id: req.params.merchantId }, md(req))),
  );
  const CommissionBody = Type.Object({ commission_rate: Type.Number({ minimum: 0, maximum: 100 }) });
  app.patch<{ Params: Static<typeof MerchantIdParams>; Body: Static<typeof CommissionBody> }>(
    '/marketplace/merchants/:merchantId/commission',
    generic(tags, "Set a sub-merchant's commission rate", { params: MerchantIdParams, body: CommissionBody }),
    async (req) =>
      ok(
        await marketplace.call(
          'UpdateCommission',
          { merchant_id: req.params.merchantId, commission_rate: req.body.commission_rate },
          md(req),
        ),
      ),
  );
  app.get(
    '/marketplace/merchants/:merchantId/balance',
    generic(tags, "A sub-merchant's wallet balances", { params: MerchantIdParams }),
    async (req: MerchantRequest) =>
      ok(await marketplace.call('GetMerchantBalance', { merchant_id: req.params.merchantId }, md(req))),
  );
  app.post<{ Params: Static<typeof MerchantIdParams>; Body: Record<string, unknown> }>(
    '/marketplace/merchants/:merchantId/kyc',
    generic(tags, 'Submit sub-merchant identity verification', {
      params: MerchantIdParams,
      body: Type.Object({}, { additionalProperties: true }),
    }),
    async (req) =>
      ok(
        await kyc.call(
          'SubmitKyc',
          { ...(req.body as types.kyc.SubmitKycRequest), merchant_id: req.params.merchantId },
          md(req),
        ),
      ),
  );
  app.get(
    '/marketplace/merchants/:merchantId/kyc',
    generic(tags, "A sub-merchant's KYC status", { params: MerchantIdParams }),
    async (req: MerchantRequest) => ok(await kyc.call('GetKycStatus', { merchant_id: req.params.merchantId }, md(req))),
  );
  app.get<{ Querystring: { currency?: string } }>(
    '/marketplace/payout/banks',
    generic(tags, 'Supported payout banks', {
      querystring: Type.Object({ currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })) }),
    }),
    async (req) => ok((await kyc.call('ListPayoutBanks', { currency: req.query.currency }, md(req))).banks),
  );
  const PayoutBody = Type.Object({
    settlement_bank: Type.Optional(Type.String()),
    account_number: Type.Optional(Type.String()),
    account_name: Type.Optional(Type.String()),
    callback_url: Type.Optional(Type.String()),
  });
  for (const [method, rpc, summary] of [
    ['POST', 'SetupPayout', 'First-time payout setup for a sub-merchant'],
    ['PATCH', 'UpdatePayout', "Update a sub-merchant's payout settings"],
  ] as const) {
    app.route<{ Params: Static<typeof MerchantIdParams>; Body: Static<typeof PayoutBody> }>({
      method,
      url: '/marketplace/merchants/:merchantId/payout',
      ...generic(tags, summary, { params: MerchantIdParams, body: PayoutBody }),
      handler: async (req) => ok(await kyc.call(rpc, { ...req.body, merchant_id: req.params.merchantId }, md(req))),
    });
  }
  const InitiatePayoutBody = Type.Object({
    amount: Type.Integer({ minimum: 1 }),
    currency: Type.String({ minLength: 3, maxLength: 3 }),
    reference: Type.String({ minLength: 1, maxLength: 255 }),
    payout_method: Type.Optional(Type.String()),
  });
  app.post<{ Body: Static<typeof InitiatePayoutBody> }>(
    '/marketplace/payouts',
    generic(tags, 'Sub-merchant: request a payout, staged for operator approval', { body: InitiatePayoutBody }),
    async (req) =>
      ok(
        await marketplace.call(
          'InitiatePayout',
          {
            amount: { amount: req.body.amount, currency: req.body.currency },
            reference: req.body.reference,
            payout_method: req.body.payout_method,
          },
          md(req),
        ),
      ),
  );
}
