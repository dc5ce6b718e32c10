import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import { CalculateQuery, Calculation, PricingParams, PricingQuery, ProductPricing } from '../schemas/pricing';

/** Spec 4.4 and the 4.1 double-check (GET /pricing/calculate). */
export async function registerPricingRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { fxPricing, marketplace } = deps.clients;
  app.get<{ Params: Static<typeof PricingParams>; Querystring: Static<typeof PricingQuery> }>(
    '/products/:product_id/pricing',
    {
      schema: {
        tags: ['Pricing'],
        summary: "A product's price in the customer's currency (spec 4.4)",
        security,
        params: PricingParams,
        querystring: PricingQuery,
        response: { 200: successOf(ProductPricing), ...COMMON_ERRORS },
      },
    },
    async (req) =>
      ok(
        await fxPricing.call(
          'GetProductPricing',
          {
            product_id: req.params.product_id,
            currency: req.query.currency?.toUpperCase(),
            customer_country: req.query.customer_country?.toUpperCase(),
            client_ip: req.ip,
          },
          callerMetadata(req),
        ),
      ),
  );
  app.get<{ Querystring: Static<typeof CalculateQuery> }>(
    '/pricing/calculate',
    {
      schema: {
        tags: ['Pricing'],
        summary: "Convert an amount (default: in the merchant's baseline currency) into a target currency",
        security,
        querystring: CalculateQuery,
        response: { 200: successOf(Calculation), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const source =
        req.query.source_currency?.toUpperCase() ||
        (await marketplace.call('GetAccount', {}, callerMetadata(req))).baseline_currency;
      return ok(
        await fxPricing.call(
          'CalculatePrice',
          {
            amount: { amount: req.query.amount, currency: source },
            target_currency: req.query.target_currency.toUpperCase(),
          },
          callerMetadata(req),
        ),
      );
    },
  );
}
