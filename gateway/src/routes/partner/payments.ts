import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PlatformError } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { ScalarMetadata, StringEnum } from '../../http/schemas';
import { generic, md } from './shared';

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

/** Spec 4.1–4.3 and the sandbox outcome helper. */
export async function registerPaymentRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments } = deps.clients;
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
}
