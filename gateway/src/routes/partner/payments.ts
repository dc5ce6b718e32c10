import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PlatformError } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { COMMON_ERRORS, ScalarMetadata, StringEnum, successOf } from '../../http/schemas';
import { md, security } from './shared';

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
      throw new PlatformError('METADATA_INVALID', undefined, {
        param: `metadata.${key}`,
        detail: 'metadata values must be strings, numbers or booleans',
      });
    }
  }
  return out;
}

const FeeDetails = Type.Object({
  base_amount: Type.Integer(),
  transaction_fee: Type.Integer(),
  total_amount: Type.Integer(),
  customer_pays_fees: Type.Boolean(),
});

/** Spec 2.2 (a charge) and the 4.1 preview table, in one schema so the response is serialised strictly. */
const ChargeData = Type.Object(
  {
    charge_id: Type.Optional(Type.String()),
    payment_gateway: Type.String({ description: 'naira_gateway, regional_gateway or card_gateway' }),
    status: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String({ description: 'card route: mounts the embedded payment form' })),
    publishable_key: Type.Optional(Type.String({ description: 'card route' })),
    gateway_account_id: Type.Optional(Type.String({ description: 'card route: connected account' })),
    transaction_id: Type.Optional(Type.String()),
    fee_details: Type.Optional(FeeDetails),
    preview: Type.Optional(Type.Literal(true)),
    mode: Type.Optional(StringEnum(['sandbox', 'live'] as const)),
    is_international: Type.Optional(Type.Boolean()),
    business_country: Type.Optional(Type.String()),
    customer_country: Type.Optional(Type.String({ description: 'ISO-2, or Unknown' })),
    customer: Type.Optional(
      Type.Object({
        currency: Type.String(),
        base_amount: Type.Integer(),
        transaction_fee: Type.Integer(),
        total_charged: Type.Integer(),
        pays_fees: Type.Boolean(),
      }),
    ),
    business: Type.Optional(Type.Object({ currency: Type.String(), priced_amount: Type.Integer() })),
    conversion: Type.Optional(
      Type.Object({
        original_amount: Type.Integer(),
        original_currency: Type.String(),
        converted_amount: Type.Integer(),
        converted_currency: Type.String(),
        exchange_rate: Type.Number(),
      }),
    ),
  },
  { additionalProperties: false },
);

const SessionStatusEnum = StringEnum(['pending', 'completed', 'expired', 'failed'] as const);
const PaymentTypeEnum = StringEnum(['one_time', 'subscription'] as const);

/** Spec 2.3 / 4.2: the create response. */
const SessionCreated = Type.Object(
  {
    session_id: Type.String(),
    gateway_session_id: Type.String(),
    payment_url: Type.String({ description: 'Hosted checkout page to redirect the customer to' }),
    expires_at: Type.String({ format: 'date-time' }),
    amount: Type.Integer({ description: 'What the customer pays: fee included when the customer pays fees' }),
    currency: Type.String(),
    status: SessionStatusEnum,
    mode: StringEnum(['sandbox', 'live'] as const),
    payment_type: PaymentTypeEnum,
    fee_details: Type.Object({
      base_product_price: Type.Integer(),
      transaction_fee: Type.Integer(),
      total_amount: Type.Integer(),
      customer_pays_fees: Type.Boolean(),
    }),
  },
  { additionalProperties: false },
);

/** Spec 4.3: the get response. */
const SessionStatusData = Type.Object(
  {
    session_id: Type.String(),
    status: SessionStatusEnum,
    amount: Type.Integer(),
    currency: Type.String(),
    payment_type: PaymentTypeEnum,
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

function chargeView(c: types.payments.Charge__Output) {
  return {
    charge_id: c.charge_id,
    payment_gateway: c.payment_gateway,
    status: c.status,
    transaction_id: c.transaction_id,
    // Card route only (spec 2.2): the embedded form needs these three.
    ...(c.client_secret
      ? { client_secret: c.client_secret, publishable_key: c.publishable_key, gateway_account_id: c.gateway_account_id }
      : {}),
    fee_details: c.fee_details!,
  };
}

function previewView(p: types.payments.ChargePreview__Output) {
  return {
    preview: true as const,
    payment_gateway: p.payment_gateway,
    mode: p.mode as 'sandbox' | 'live',
    is_international: p.is_international,
    business_country: p.business_country,
    customer_country: p.customer_country,
    customer: {
      currency: p.customer_currency,
      base_amount: p.customer_base_amount,
      transaction_fee: p.customer_transaction_fee,
      total_charged: p.customer_total_charged,
      pays_fees: p.customer_pays_fees,
    },
    business: { currency: p.business_currency, priced_amount: p.business_priced_amount },
    // Only when the customer's currency differs from the pricing currency (spec 4.1).
    ...(p.conversion
      ? {
          conversion: {
            original_amount: p.conversion.original_amount,
            original_currency: p.conversion.original_currency,
            converted_amount: p.conversion.converted_amount,
            converted_currency: p.conversion.converted_currency,
            exchange_rate: p.conversion.exchange_rate,
          },
        }
      : {}),
  };
}

/**
 * The customer's country, first present of: customer.country, user_country, customer_country,
 * country_code, metadata.customer_country, then the billing and shipping fallbacks (top level,
 * then metadata). The payments service normalises names and codes, or reports Unknown.
 */
function customerCountry(b: Static<typeof ChargeBody>, metadata: Record<string, unknown> | undefined): string {
  const candidates: unknown[] = [
    b.customer?.country,
    b.user_country,
    b.customer_country,
    b.country_code,
    metadata?.customer_country,
    b.billing_country,
    b.shipping_country,
    metadata?.billing_country,
    metadata?.shipping_country,
  ];
  const found = candidates.find((c) => typeof c === 'string' && c.trim() !== '');
  return typeof found === 'string' ? found.trim() : '';
}

function customerOf(c: Static<typeof Customer> | undefined): types.payments.Customer {
  return { email: c?.email, first_name: c?.first_name, last_name: c?.last_name, country: c?.country };
}

/** Spec 4.1–4.3 and the sandbox outcome helper. */
export async function registerPaymentRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments } = deps.clients;
  app.post<{ Body: Static<typeof ChargeBody> }>(
    '/payments/charge',
    {
      schema: {
        tags: ['Payments'],
        summary: 'Create a one-time charge, or preview its fees and conversion (preview: true)',
        description:
          'Amounts are integers in the smallest unit of their currency. Send the same body with preview: true first ' +
          'to show the breakdown; nothing is stored and no gateway is called. A repeated `reference` returns the ' +
          'original charge.',
        security,
        body: ChargeBody,
        response: { 200: successOf(ChargeData), ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const b = req.body ?? {};
      const metadata = toMetadata(b.metadata as Record<string, unknown> | undefined);
      const customer = customerOf(b.customer);
      customer.country = customerCountry(b, b.metadata as Record<string, unknown> | undefined);
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
          metadata,
          preview: b.preview ?? false,
          sub_merchant_id: b.sub_merchant_id,
          idempotency_key: String(req.headers['idempotency-key'] ?? ''),
        },
        md(req),
      );
      if (res.preview) return ok(previewView(res.preview), 'Preview only: no charge was created');
      if (res.replayed) reply.header('idempotent-replayed', 'true');
      return ok(chargeView(res.charge!), res.replayed ? 'Existing charge for this reference' : undefined);
    },
  );
  const checkoutUrl = (sessionId: string) =>
    `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/checkout/${encodeURIComponent(sessionId)}`;
  app.post<{ Body: Static<typeof SessionBody> }>(
    '/payments/sessions',
    {
      schema: {
        tags: ['Payments'],
        summary: 'Create a hosted checkout session',
        description:
          'Redirect the customer to `payment_url`. `amount` is in the smallest unit of `currency` (one the ' +
          'gateways take); one of product_id / product_name is required. The session expires after 30 minutes.',
        security,
        body: SessionBody,
        response: { 200: successOf(SessionCreated), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const b = req.body ?? {};
      const s = await payments.call(
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
      );
      return ok({
        session_id: s.session_id,
        gateway_session_id: s.gateway_session_id,
        payment_url: checkoutUrl(s.session_id),
        expires_at: s.expires_at,
        amount: s.amount,
        currency: s.currency,
        status: s.status,
        mode: s.mode,
        payment_type: s.payment_type,
        fee_details: s.fee_details!,
      });
    },
  );
  app.get<{ Params: { session_id: string } }>(
    '/payments/sessions/:session_id',
    {
      schema: {
        tags: ['Payments'],
        summary: 'Get a checkout session (status: pending, completed, expired or failed)',
        security,
        params: Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: successOf(SessionStatusData), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const s = await payments.call('GetSession', { session_id: req.params.session_id }, md(req));
      return ok({
        session_id: s.session_id,
        status: s.status,
        amount: s.amount,
        currency: s.currency,
        payment_type: s.payment_type,
        created_at: s.created_at,
        completed_at: s.completed_at || null,
      });
    },
  );
  app.post<{ Params: { charge_id: string; outcome: 'succeed' | 'fail' } }>(
    '/sandbox/charges/:charge_id/:outcome',
    {
      schema: {
        tags: ['Sandbox'],
        summary:
          'Sandbox keys only: drive a pending charge to success or failure (emits payment.succeeded / payment.failed)',
        security,
        params: Type.Object({
          charge_id: Type.String({ minLength: 1, maxLength: 64 }),
          outcome: StringEnum(['succeed', 'fail'] as const),
        }),
        response: { 200: successOf(ChargeData), ...COMMON_ERRORS },
      },
    },
    async (req) =>
      ok(
        chargeView(
          await payments.call(
            'SimulateChargeOutcome',
            { charge_id: req.params.charge_id, outcome: req.params.outcome },
            md(req),
          ),
        ),
      ),
  );
}
