import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PlatformError } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import {
  ChargeBody,
  ChargeData,
  ChargeDetail,
  ChargeList,
  ChargeListQuery,
  ChargeParams,
  ChargeRefundsData,
  RefundBody,
  RefundData,
  CustomerInput,
  OutcomeParams,
  SessionBody,
  SessionCreated,
  SessionParams,
  SessionStatusData,
} from '../schemas/payments';

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

function customerOf(c: Static<typeof CustomerInput> | undefined): types.payments.Customer {
  return { email: c?.email, first_name: c?.first_name, last_name: c?.last_name, country: c?.country };
}

const idempotencyKey = (headers: Record<string, unknown>) => String(headers['idempotency-key'] ?? '');

/**
 * A REST amount and its currency as the wire Money: absent when the amount is (the spec 7.1 messages
 * tell a missing amount apart), with an empty currency when only the currency is missing.
 */
const moneyOf = (amount: number | undefined, currency: string | undefined): types.common.Money | undefined =>
  amount === undefined ? undefined : { amount, currency: currency ?? '' };

/** Spec 4.1–4.3 and the sandbox outcome helper. */
export async function registerPaymentRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments } = deps.clients;
  // Creating a payment may wait on a processor: a longer deadline, which payments stays inside.
  const payment = { deadlineMs: deps.config.GRPC_PAYMENT_DEADLINE_MS };
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
      const metadata = b.metadata as Record<string, unknown> | undefined;
      // The only REST → proto mapping on this path: amounts as Money, the spec's deprecated aliases and
      // country fallbacks.
      const res = await payments.call(
        'CreateCharge',
        {
          amount: moneyOf(b.amount, b.currency),
          total: moneyOf(b.total_amount ?? b.original_product_amount, b.total_currency ?? b.original_product_currency),
          converted_total: moneyOf(b.converted_total_amount, b.converted_total_currency),
          // A currency without its amount cannot travel as Money; payments names what is missing (spec 7.1).
          unpaired_converted_total_currency:
            b.converted_total_amount === undefined ? b.converted_total_currency : undefined,
          description: b.description,
          reference: b.reference,
          callback_url: b.callback_url ?? b.redirect_url ?? b.redirectUrl,
          customer: { ...customerOf(b.customer), country: customerCountry(b, metadata) },
          metadata: toMetadata(metadata),
          preview: b.preview ?? false,
          sub_merchant_id: b.sub_merchant_id,
          idempotency_key: idempotencyKey(req.headers),
        },
        callerMetadata(req),
        payment,
      );
      if (res.preview) return ok(res.preview, 'Preview only: no charge was created');
      if (res.replayed) reply.header('idempotent-replayed', 'true');
      return ok(res.charge!, res.replayed ? 'Existing charge for this reference' : undefined);
    },
  );

  app.get<{ Querystring: Static<typeof ChargeListQuery> }>(
    '/payments/charges',
    {
      schema: {
        tags: ['Payments'],
        summary: 'List charges (newest first; filter by status, reference and time; cursor paging)',
        description:
          'Beyond the spec: every charge of the key’s mode — one-time charges, hosted-checkout payments and ' +
          'subscription renewals — with its refunds and dispute, so a merchant reconciles without a webhook.',
        security,
        querystring: ChargeListQuery,
        response: { 200: successOf(ChargeList), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('ListCharges', req.query, callerMetadata(req))),
  );

  app.get<{ Params: Static<typeof ChargeParams> }>(
    '/payments/charges/:charge_id',
    {
      schema: {
        tags: ['Payments'],
        summary: 'A charge: the spec 2.2 fields, its status and amounts, its refunds and its dispute',
        security,
        params: ChargeParams,
        response: { 200: successOf(ChargeDetail), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('GetCharge', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof ChargeParams>; Body: Static<typeof RefundBody> }>(
    '/payments/charges/:charge_id/refunds',
    {
      schema: {
        tags: ['Payments'],
        summary: 'Refund a succeeded charge, in full (no amount) or in part',
        description:
          'Beyond the spec. `amount` is in minor units of the charge currency; all refunds of a charge together ' +
          'never exceed what the customer paid. Send an Idempotency-Key to retry safely. The answer is the refund: ' +
          '`succeeded` (payment.refunded follows), `failed` (declined by the processor; nothing moved) or ' +
          '`pending` (the processor has not answered; retry with the same key). In sandbox, reason ' +
          '"sandbox_decline" makes the processor decline the refund.',
        security,
        params: ChargeParams,
        body: RefundBody,
        response: { 200: successOf(RefundData), ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const b = req.body ?? {};
      const res = await payments.call(
        'CreateRefund',
        {
          charge_id: req.params.charge_id,
          // Partners send no currency: an empty one is the charge's.
          amount: moneyOf(b.amount, ''),
          reason: b.reason,
          idempotency_key: idempotencyKey(req.headers),
        },
        callerMetadata(req),
        payment,
      );
      if (res.replayed) reply.header('idempotent-replayed', 'true');
      return ok(res.refund!);
    },
  );

  app.get<{ Params: Static<typeof ChargeParams> }>(
    '/payments/charges/:charge_id/refunds',
    {
      schema: {
        tags: ['Payments'],
        summary: "A charge's refunds, oldest first, with its captured and refunded totals",
        security,
        params: ChargeParams,
        response: { 200: successOf(ChargeRefundsData), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('ListRefunds', req.params, callerMetadata(req))),
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
      const { amount, currency, ...b } = req.body ?? {};
      const s = await payments.call(
        'CreateSession',
        {
          ...b,
          amount: moneyOf(amount, currency),
          // A physical product's total may be left to the platform, in the currency sent.
          unpaired_currency: amount === undefined ? currency : undefined,
          customer: customerOf(b.customer),
          metadata: toMetadata(b.metadata as Record<string, unknown> | undefined),
          idempotency_key: idempotencyKey(req.headers),
        },
        callerMetadata(req),
        payment,
      );
      // The processor's page when it has one (a live session); else ours, whose public address the gateway owns.
      return ok({ ...s, payment_url: s.payment_url || checkoutUrl(s.session_id) });
    },
  );

  app.get<{ Params: Static<typeof SessionParams> }>(
    '/payments/sessions/:session_id',
    {
      schema: {
        tags: ['Payments'],
        summary: 'Get a checkout session (status: pending, completed, expired or failed)',
        security,
        params: SessionParams,
        response: { 200: successOf(SessionStatusData), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('GetSession', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof OutcomeParams> }>(
    '/sandbox/charges/:charge_id/:outcome',
    {
      schema: {
        tags: ['Sandbox'],
        summary:
          'Sandbox keys only: drive a pending charge to success or failure (emits payment.succeeded / payment.failed)',
        security,
        params: OutcomeParams,
        response: { 200: successOf(ChargeData), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('SimulateChargeOutcome', req.params, callerMetadata(req))),
  );
}
