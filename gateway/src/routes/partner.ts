import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerToMetadata, PlatformError } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../app';
import { apiKeyAuth } from '../auth/hooks';
import { ok } from '../http/envelope';
import { COMMON_ERRORS, ScalarMetadata, StringEnum, successOf } from '../http/schemas';

const AnyData = Type.Object({}, { additionalProperties: true });
const security = [{ apiKey: [] }];
const MerchantIdParams = Type.Object({ merchantId: Type.Integer({ minimum: 1 }) });
type MerchantRequest = FastifyRequest<{ Params: Static<typeof MerchantIdParams> }>;

const Customer = Type.Object(
  {
    email: Type.Optional(Type.String()),
    first_name: Type.Optional(Type.String()),
    last_name: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const ChargeBody = Type.Object(
  {
    amount: Type.Optional(Type.Integer()),
    currency: Type.Optional(Type.String()),
    total_amount: Type.Optional(Type.Integer()),
    total_currency: Type.Optional(Type.String()),
    original_product_amount: Type.Optional(Type.Integer({ deprecated: true, description: 'Alias of total_amount' })),
    original_product_currency: Type.Optional(Type.String({ deprecated: true, description: 'Alias of total_currency' })),
    converted_total_amount: Type.Optional(Type.Integer()),
    converted_total_currency: Type.Optional(Type.String()),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    reference: Type.Optional(Type.String({ maxLength: 255 })),
    callback_url: Type.Optional(Type.String()),
    redirectUrl: Type.Optional(Type.String({ description: 'Alias of callback_url' })),
    redirect_url: Type.Optional(Type.String({ description: 'Alias of callback_url' })),
    customer: Type.Optional(Customer),
    user_country: Type.Optional(Type.String()),
    customer_country: Type.Optional(Type.String()),
    country_code: Type.Optional(Type.String()),
    billing_country: Type.Optional(Type.String()),
    shipping_country: Type.Optional(Type.String()),
    metadata: Type.Optional(ScalarMetadata),
    preview: Type.Optional(Type.Boolean()),
    sub_merchant_id: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: true },
);

const SessionBody = Type.Object(
  {
    amount: Type.Optional(Type.Integer()),
    currency: Type.Optional(Type.String()),
    product_id: Type.Optional(Type.Integer()),
    product_name: Type.Optional(Type.String()),
    customer: Type.Optional(Customer),
    success_url: Type.Optional(Type.String()),
    cancel_url: Type.Optional(Type.String()),
    subscription_frequency_key: Type.Optional(Type.String()),
    metadata: Type.Optional(ScalarMetadata),
  },
  { additionalProperties: true },
);

/** Metadata values must be scalars (spec 4.1); nested objects and arrays are refused with 422. */
function toMetadata(input: Record<string, unknown> | undefined): Record<string, types.common.MetadataValue> {
  const out: Record<string, types.common.MetadataValue> = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (typeof value === 'string') out[key] = { string_value: value };
    else if (typeof value === 'number' && Number.isFinite(value)) out[key] = { number_value: value };
    else if (typeof value === 'boolean') out[key] = { bool_value: value };
    else {
      throw new PlatformError('UNPROCESSABLE', 'Metadata validation failed', {
        param: `metadata.${key}`,
        detail: 'metadata values must be strings, numbers or booleans',
      });
    }
  }
  return out;
}

function customerOf(c: Static<typeof Customer> | undefined): types.payments.Customer {
  return { email: c?.email, first_name: c?.first_name, last_name: c?.last_name, country: c?.country };
}

/** Partner API (spec 4.1–4.7, 4.9), authenticated with X-API-Key. */
export async function registerPartnerRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments, fxPricing, subscriptions, marketplace, kyc } = deps.clients;
  app.addHook('preValidation', apiKeyAuth(deps));
  const md = (req: FastifyRequest) => callerToMetadata(req.caller);
  const generic = (tags: string[], summary: string, extra: Record<string, unknown> = {}) => ({
    schema: { tags, summary, security, response: { 200: successOf(AnyData), ...COMMON_ERRORS }, ...extra },
  });

  app.get(
    '/account',
    {
      schema: {
        tags: ['Account'],
        summary: 'Merchant ID and baseline currency of the calling key',
        security,
        response: {
          200: successOf(
            Type.Object({
              merchant_id: Type.Integer(),
              baseline_currency: Type.String(),
              mode: StringEnum(['sandbox', 'live'] as const),
              is_marketplace_operator: Type.Boolean(),
            }),
          ),
          ...COMMON_ERRORS,
        },
      },
    },
    async (req) => ok(await marketplace.call('GetAccount', {}, md(req))),
  );

  // Payments (spec 4.1–4.3)
  app.post<{ Body: Static<typeof ChargeBody> }>(
    '/payments/charge',
    generic(['Payments'], 'Create a one-time charge, or preview its fees and conversion', { body: ChargeBody }),
    async (req) => {
      const b = req.body ?? {};
      const customer = customerOf(b.customer);
      customer.country ||= b.user_country ?? b.customer_country ?? b.country_code ?? '';
      const res = await payments.call(
        'CreateCharge',
        {
          amount: b.amount,
          currency: b.currency,
          total_amount: b.total_amount ?? b.original_product_amount,
          total_currency: b.total_currency ?? b.original_product_currency,
          converted_total_amount: b.converted_total_amount,
          converted_total_currency: b.converted_total_currency,
          description: b.description,
          reference: b.reference,
          callback_url: b.callback_url ?? b.redirect_url ?? b.redirectUrl,
          customer,
          metadata: toMetadata(b.metadata as Record<string, unknown> | undefined),
          preview: b.preview ?? false,
          sub_merchant_id: b.sub_merchant_id,
          idempotency_key: String(req.headers['idempotency-key'] ?? ''),
        },
        md(req),
      );
      return ok(res.preview ?? res.charge);
    },
  );
  app.post<{ Body: Static<typeof SessionBody> }>(
    '/payments/sessions',
    generic(['Payments'], 'Create a hosted checkout session', { body: SessionBody }),
    async (req) => {
      const b = req.body ?? {};
      return ok(
        await payments.call(
          'CreateSession',
          {
            amount: b.amount,
            currency: b.currency,
            product_id: b.product_id,
            product_name: b.product_name,
            customer: customerOf(b.customer),
            success_url: b.success_url,
            cancel_url: b.cancel_url,
            subscription_frequency_key: b.subscription_frequency_key,
            metadata: toMetadata(b.metadata as Record<string, unknown> | undefined),
            idempotency_key: String(req.headers['idempotency-key'] ?? ''),
          },
          md(req),
        ),
      );
    },
  );
  app.get<{ Params: { session_id: string } }>(
    '/payments/sessions/:session_id',
    generic(['Payments'], 'Get a checkout session', {
      params: Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) }),
    }),
    async (req) => ok(await payments.call('GetSession', { session_id: req.params.session_id }, md(req))),
  );
  app.post<{ Params: { charge_id: string; outcome: 'succeed' | 'fail' } }>(
    '/sandbox/charges/:charge_id/:outcome',
    generic(['Sandbox'], 'Sandbox only: drive a charge to success or failure', {
      params: Type.Object({
        charge_id: Type.String({ minLength: 1, maxLength: 64 }),
        outcome: StringEnum(['succeed', 'fail'] as const),
      }),
    }),
    async (req) =>
      ok(
        await payments.call(
          'SimulateChargeOutcome',
          { charge_id: req.params.charge_id, outcome: req.params.outcome },
          md(req),
        ),
      ),
  );

  // Pricing (spec 4.4 and the 4.1 double-check)
  app.get<{ Params: { product_id: number }; Querystring: { currency?: string; customer_country?: string } }>(
    '/products/:product_id/pricing',
    generic(['Pricing'], "A product's price in the customer's currency", {
      params: Type.Object({ product_id: Type.Integer({ minimum: 1 }) }),
      querystring: Type.Object({
        currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
        customer_country: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })),
      }),
    }),
    async (req) =>
      ok(
        await fxPricing.call(
          'GetProductPricing',
          {
            product_id: req.params.product_id,
            currency: req.query.currency,
            customer_country: req.query.customer_country,
            client_ip: req.ip,
          },
          md(req),
        ),
      ),
  );
  app.get<{ Querystring: { amount: number; target_currency: string; source_currency?: string } }>(
    '/pricing/calculate',
    generic(['Pricing'], 'Convert an amount into a target currency', {
      querystring: Type.Object({
        amount: Type.Integer({ minimum: 0 }),
        target_currency: Type.String({ minLength: 3, maxLength: 3 }),
        source_currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
      }),
    }),
    async (req) => ok(await fxPricing.call('CalculatePrice', { ...req.query }, md(req))),
  );
  app.get<{ Querystring: { page: number; limit: number } }>(
    '/products',
    generic(['Pricing'], "List the merchant's products", {
      querystring: Type.Object({
        page: Type.Integer({ minimum: 1, default: 1 }),
        limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
      }),
    }),
    async (req) => ok(await fxPricing.call('ListProducts', { page: { ...req.query } }, md(req))),
  );

  // Subscriptions (spec 4.5, 4.6)
  const SubscriptionQuery = Type.Object({
    status: Type.Optional(StringEnum(['pending', 'active', 'due', 'cancelled', 'paused'] as const)),
    product_id: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    offset: Type.Integer({ minimum: 0, default: 0 }),
    sort_by: StringEnum(['created_at', 'next_payment', 'actual_price', 'payment_status'] as const, {
      default: 'created_at',
    }),
    sort_order: StringEnum(['ASC', 'DESC'] as const, { default: 'DESC' }),
  });
  app.get<{ Querystring: Static<typeof SubscriptionQuery> }>(
    '/subscriptions',
    generic(['Subscriptions'], 'List subscriptions', { querystring: SubscriptionQuery }),
    async (req) => ok(await subscriptions.call('ListSubscriptions', { ...req.query }, md(req))),
  );
  app.patch<{ Params: { subscription_id: string } }>(
    '/subscriptions/:subscription_id/cancel',
    generic(['Subscriptions'], 'Cancel an active subscription', {
      params: Type.Object({ subscription_id: Type.String({ minLength: 1, maxLength: 64 }) }),
    }),
    async (req) =>
      ok(await subscriptions.call('CancelSubscription', { subscription_id: req.params.subscription_id }, md(req))),
  );

  // Marketplace (spec 4.9)
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
