import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { generic, md } from './shared';

/** Spec 4.4, the 4.1 double-check (GET /pricing/calculate) and the product list. */
export async function registerPricingRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { fxPricing } = deps.clients;
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
}
