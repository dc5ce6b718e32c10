import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { COMMON_ERRORS, StringEnum, successOf } from '../../http/schemas';
import { generic, md, MerchantIdParams, security } from './shared';

type MerchantRequest = FastifyRequest<{ Params: Static<typeof MerchantIdParams> }>;

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Spec 2.6 list item, plus how its commission_rate was resolved. */
const RelationshipView = Type.Object({
  id: Type.Integer({ description: 'relationship ID' }),
  marketplace_id: Type.Integer({ description: "operator's business ID" }),
  merchant_id: Type.Integer({ description: "sub-merchant's business ID" }),
  commission_rate: Type.String({ description: 'effective decimal rate, e.g. 0.0800 means 8%' }),
  commission_source: StringEnum(['merchant', 'marketplace_default', 'none'] as const, {
    description: 'merchant: set by update commission; marketplace_default: the setup default; none: 0',
  }),
  status: StringEnum(['pending', 'active', 'suspended'] as const),
  invite_token: nullable(Type.String()),
  invited_at: nullable(Type.String()),
  joined_at: nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  merchant: Type.Object({
    id: Type.Integer(),
    educator_email: Type.String({ description: 'merchant e-mail address' }),
  }),
});

function relationshipView(r: types.marketplace.MerchantRelationship__Output): Static<typeof RelationshipView> {
  return {
    id: r.id,
    marketplace_id: r.marketplace_id,
    merchant_id: r.merchant_id,
    commission_rate: r.commission_rate,
    commission_source: r.commission_source as Static<typeof RelationshipView>['commission_source'],
    status: r.status as Static<typeof RelationshipView>['status'],
    invite_token: r.invite_token || null,
    invited_at: r.invited_at || null,
    joined_at: r.joined_at || null,
    created_at: r.created_at,
    updated_at: r.updated_at,
    merchant: { id: r.merchant?.id ?? r.merchant_id, educator_email: r.merchant?.educator_email ?? '' },
  };
}

const MarketplaceView = Type.Object({
  marketplace_id: Type.String({ description: "the operator's business ID" }),
  status: StringEnum(['active'] as const),
  marketplace_name: Type.String(),
  default_commission_rate: nullable(Type.String({ description: 'decimal, e.g. 0.0800; null = no default (0)' })),
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** Spec 4.9 (marketplace operators) and the operations it names without shapes. */
export async function registerMarketplaceRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace, kyc } = deps.clients;
  const tags = ['Marketplace'];
  const SetupBody = Type.Object(
    {
      marketplace_name: Type.String({ minLength: 1, maxLength: 200 }),
      default_commission_rate: Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: 100,
          description: 'Percent, at most 2 decimals (8 = 8%); omitted on a repeated setup keeps the current default',
        }),
      ),
    },
    { additionalProperties: false },
  );
  app.post<{ Body: Static<typeof SetupBody> }>(
    '/marketplace/setup',
    {
      schema: {
        tags,
        security,
        summary: 'Enable marketplace mode (repeatable: updates the name and default commission)',
        body: SetupBody,
        response: { 200: successOf(MarketplaceView), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const res = await marketplace.call('SetupMarketplace', { ...req.body }, md(req));
      return ok(
        {
          marketplace_id: res.marketplace_id,
          status: res.status as 'active',
          marketplace_name: res.marketplace_name,
          default_commission_rate: res.default_commission_rate || null,
          created_at: res.created_at,
          updated_at: res.updated_at,
        },
        'Marketplace mode enabled',
      );
    },
  );
  const LinkBody = Type.Object(
    {
      merchant_id: Type.Optional(
        Type.Integer({ minimum: 1, description: 'Invite an existing business (joins as pending until it accepts)' }),
      ),
      email: Type.Optional(Type.String({ maxLength: 254, description: 'New business: e-mail (required)' })),
      business_name: Type.Optional(Type.String({ maxLength: 200, description: 'New business: display name' })),
      country: Type.Optional(
        Type.String({ minLength: 2, maxLength: 2, description: 'New business: ISO-2 (required)' }),
      ),
      baseline_currency: Type.Optional(
        Type.String({ minLength: 3, maxLength: 3, description: 'New business: ISO 4217 (required)' }),
      ),
      commission_rate: Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: 100,
          description: 'Percent, at most 2 decimals; omitted = marketplace default',
        }),
      ),
    },
    { additionalProperties: false },
  );
  app.post<{ Body: Static<typeof LinkBody> }>(
    '/marketplace/merchants',
    {
      schema: {
        tags,
        security,
        summary:
          'Create or link merchant: new business fields create an active sub-merchant; merchant_id invites an existing business',
        body: LinkBody,
        response: { 201: successOf(RelationshipView), ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const rel = await marketplace.call('LinkMerchant', { ...req.body }, md(req));
      return reply
        .status(201)
        .send(ok(relationshipView(rel), rel.status === 'pending' ? 'Invitation created' : 'Merchant created'));
    },
  );
  const AcceptBody = Type.Object(
    { invite_token: Type.String({ minLength: 1, maxLength: 100 }) },
    { additionalProperties: false },
  );
  app.post<{ Body: Static<typeof AcceptBody> }>(
    '/marketplace/invitations/accept',
    {
      schema: {
        tags,
        security,
        summary: "Invited business: accept an operator's invitation (with the invited business's own API key)",
        body: AcceptBody,
        response: { 200: successOf(RelationshipView), ...COMMON_ERRORS },
      },
    },
    async (req) =>
      ok(relationshipView(await marketplace.call('AcceptInvitation', { ...req.body }, md(req))), 'Invitation accepted'),
  );
  const ListQuery = Type.Object({
    status: StringEnum(['active', 'suspended', 'pending'] as const, { default: 'active' }),
    page: Type.Integer({ minimum: 1, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  });
  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/marketplace/merchants',
    {
      schema: {
        tags,
        security,
        summary: 'List sub-merchants',
        querystring: ListQuery,
        response: {
          200: successOf(
            Type.Object({
              merchants: Type.Array(RelationshipView),
              pagination: Type.Object({
                page: Type.Integer(),
                limit: Type.Integer(),
                total: Type.Integer(),
                pages: Type.Integer(),
              }),
            }),
          ),
          ...COMMON_ERRORS,
        },
      },
    },
    async (req) => {
      const res = await marketplace.call(
        'ListMerchants',
        { status: req.query.status, page: { page: req.query.page, limit: req.query.limit } },
        md(req),
      );
      return ok({
        merchants: res.merchants.map(relationshipView),
        pagination: {
          page: res.pagination?.page ?? req.query.page,
          limit: res.pagination?.limit ?? req.query.limit,
          total: res.pagination?.total ?? 0,
          pages: res.pagination?.pages ?? 0,
        },
      });
    },
  );
  app.delete(
    '/marketplace/merchants/:merchantId',
    {
      schema: {
        tags,
        security,
        summary: 'Remove merchant: suspends an active sub-merchant (account, products and history untouched)',
        params: MerchantIdParams,
        response: {
          200: Type.Object({ success: Type.Literal(true), message: Type.String() }),
          ...COMMON_ERRORS,
        },
      },
    },
    async (req: MerchantRequest) => {
      const res = await marketplace.call('RemoveMerchant', { merchant_id: req.params.merchantId }, md(req));
      return { success: true as const, message: res.message };
    },
  );
  app.post(
    '/marketplace/merchants/:merchantId/reactivate',
    {
      schema: {
        tags,
        security,
        summary: 'Reactivate merchant: restores a suspended sub-merchant',
        params: MerchantIdParams,
        response: { 200: successOf(RelationshipView), ...COMMON_ERRORS },
      },
    },
    async (req: MerchantRequest) =>
      ok(
        relationshipView(await marketplace.call('ReactivateMerchant', { merchant_id: req.params.merchantId }, md(req))),
      ),
  );
  app.delete(
    '/marketplace/merchants/:merchantId/delete',
    generic(tags, 'Permanently delete a sub-merchant and its data', { params: MerchantIdParams }),
    async (req: MerchantRequest) =>
      ok(await marketplace.call('DeleteMerchant', { merchant_id: req.params.merchantId }, md(req))),
  );
  const CommissionBody = Type.Object(
    {
      commission_rate: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
        description: 'Percent, at most 2 decimals (8 = 8%); null falls back to the marketplace default',
      }),
    },
    { additionalProperties: false },
  );
  app.patch<{ Params: Static<typeof MerchantIdParams>; Body: Static<typeof CommissionBody> }>(
    '/marketplace/merchants/:merchantId/commission',
    {
      schema: {
        tags,
        security,
        summary: "Update commission: set a sub-merchant's own rate, or null for the marketplace default",
        params: MerchantIdParams,
        body: CommissionBody,
        response: { 200: successOf(RelationshipView), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const rate = req.body.commission_rate;
      const rel = await marketplace.call(
        'UpdateCommission',
        { merchant_id: req.params.merchantId, ...(rate === null ? {} : { commission_rate: rate }) },
        md(req),
      );
      return ok(relationshipView(rel));
    },
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
