import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { COMMON_ERRORS, StringEnum, successOf } from '../../http/schemas';
import { md, security } from './shared';

const Amount = Type.Object({
  amount: Type.Integer({ description: 'Smallest currency unit (whole units for JPY, KRW, VND)' }),
  currency: Type.String({ description: 'ISO 4217' }),
  formatted: Type.String({ description: 'Intl.NumberFormat, English with the customer country conventions' }),
});

const Conversion = Type.Object({
  rate: Type.Number({
    description: '1 unit of the base currency = rate units of the local currency (surcharge included)',
  }),
  source: Type.String({ description: 'Rate source: identity, bundled:<table date> or live:<host>' }),
  applied: Type.Boolean(),
  surcharge_percent: Type.Number({ description: 'FX markup included in rate, in percent' }),
  rate_date: Type.String({ description: 'As-of of the rate; empty when no conversion was applied' }),
});

const PriceDiscrimination = Type.Union([
  Type.Object({
    original_base_price: Type.Integer(),
    discrimination_amount: Type.Integer(),
    adjusted_base_price: Type.Integer(),
    discrimination_percentage: Type.Number({ description: '0.15 means +15%' }),
    country_triggered: Type.String(),
  }),
  Type.Null(),
]);

const ProductPricing = Type.Object({
  product: Type.Object({ id: Type.Integer(), name: Type.String(), type: Type.String() }),
  pricing: Type.Object({ base: Amount, local: Amount, conversion: Conversion }),
  price_discrimination: PriceDiscrimination,
  amount: Type.Object({ product_price: Amount, total: Amount }),
  customer: Type.Object({
    location: Type.Object({
      country: Type.String(),
      country_code: Type.String(),
      detected_from: StringEnum(['query', 'currency', 'ip', 'default'] as const),
    }),
    currency: Type.Object({ code: Type.String(), detected: Type.Boolean(), override: Type.Boolean() }),
  }),
  payment: Type.Object({ methods: Type.Array(Type.String()), currency: Type.String() }),
});

const Calculation = Type.Object({
  base: Amount,
  local: Amount,
  rate: Type.Number(),
  rate_decimal: Type.String({ description: 'The exact rate used' }),
  source: Type.String(),
  surcharge_percent: Type.Number(),
  rate_date: Type.String(),
  applied: Type.Boolean(),
});

const ProductItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String(),
  base_price: Type.Object({ amount: Type.Integer(), currency: Type.String() }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
const ProductList = Type.Object({
  products: Type.Array(ProductItem),
  pagination: Type.Object({
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    pages: Type.Integer(),
  }),
});

const fm = (m: types.fxpricing.FormattedMoney__Output | null) => ({
  amount: m?.amount ?? 0,
  currency: m?.currency ?? '',
  formatted: m?.formatted ?? '',
});

/** gRPC ProductPricing → the spec 4.4 response table. */
function toProductPricing(p: types.fxpricing.ProductPricing__Output) {
  const d = p.price_discrimination;
  return {
    product: { id: p.product?.id ?? 0, name: p.product?.name ?? '', type: p.product?.type ?? '' },
    pricing: {
      base: fm(p.base),
      local: fm(p.local),
      conversion: {
        rate: p.conversion_rate,
        source: p.conversion_source,
        applied: p.conversion_applied,
        surcharge_percent: p.conversion_surcharge_percent,
        rate_date: p.conversion_rate_date,
      },
    },
    price_discrimination: d
      ? {
          original_base_price: d.original_base_price,
          discrimination_amount: d.discrimination_amount,
          adjusted_base_price: d.adjusted_base_price,
          discrimination_percentage: d.discrimination_percentage,
          country_triggered: d.country_triggered,
        }
      : null,
    amount: { product_price: fm(p.product_price), total: fm(p.total) },
    customer: {
      location: {
        country: p.location_country,
        country_code: p.location_country_code,
        detected_from: p.location_detected_from,
      },
      currency: { code: p.currency_code, detected: p.currency_detected, override: p.currency_override },
    },
    payment: { methods: p.payment_methods, currency: p.payment_currency },
  };
}

const Currency = Type.String({ pattern: '^[A-Za-z]{3}$', description: '3-letter ISO 4217 code' });

/** Spec 4.4, the 4.1 double-check (GET /pricing/calculate) and the product list. */
export async function registerPricingRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { fxPricing, marketplace } = deps.clients;
  app.get<{ Params: { product_id: number }; Querystring: { currency?: string; customer_country?: string } }>(
    '/products/:product_id/pricing',
    {
      schema: {
        tags: ['Pricing'],
        summary: "A product's price in the customer's currency (spec 4.4)",
        security,
        params: Type.Object({ product_id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({
          currency: Type.Optional(Currency),
          customer_country: Type.Optional(
            Type.String({ pattern: '^[A-Za-z]{2}$', description: '2-letter ISO 3166-1 code' }),
          ),
        }),
        response: { 200: successOf(ProductPricing), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const pricing = await fxPricing.call(
        'GetProductPricing',
        {
          product_id: req.params.product_id,
          currency: req.query.currency?.toUpperCase(),
          customer_country: req.query.customer_country?.toUpperCase(),
          client_ip: req.ip,
        },
        md(req),
      );
      return ok(toProductPricing(pricing));
    },
  );
  app.get<{ Querystring: { amount: number; target_currency: string; source_currency?: string } }>(
    '/pricing/calculate',
    {
      schema: {
        tags: ['Pricing'],
        summary: "Convert an amount (default: in the merchant's baseline currency) into a target currency",
        security,
        querystring: Type.Object({
          amount: Type.Integer({ minimum: 0, description: 'Smallest unit of source_currency' }),
          target_currency: Currency,
          source_currency: Type.Optional({ ...Currency, description: "Default: the merchant's baseline currency" }),
        }),
        response: { 200: successOf(Calculation), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const source =
        req.query.source_currency?.toUpperCase() ||
        (await marketplace.call('GetAccount', {}, md(req))).baseline_currency;
      const r = await fxPricing.call(
        'CalculatePrice',
        { amount: req.query.amount, source_currency: source, target_currency: req.query.target_currency.toUpperCase() },
        md(req),
      );
      return ok({
        base: fm(r.base),
        local: fm(r.local),
        rate: r.rate,
        rate_decimal: r.rate_decimal,
        source: r.source,
        surcharge_percent: r.surcharge_percent,
        rate_date: r.rate_date,
        applied: r.applied,
      });
    },
  );
  app.get<{ Querystring: { page: number; limit: number } }>(
    '/products',
    {
      schema: {
        tags: ['Pricing'],
        summary: "List the merchant's products",
        security,
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, default: 1 }),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
        }),
        response: { 200: successOf(ProductList), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const r = await fxPricing.call('ListProducts', { page: { ...req.query } }, md(req));
      return ok({
        products: r.products.map((p) => ({
          id: p.id,
          name: p.name,
          type: p.type,
          base_price: { amount: p.base_price?.amount ?? 0, currency: p.base_price?.currency ?? '' },
          created_at: p.created_at,
          updated_at: p.updated_at,
        })),
        pagination: r.pagination ?? { page: req.query.page, limit: req.query.limit, total: 0, pages: 0 },
      });
    },
  );
}
