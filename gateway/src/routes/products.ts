import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import {
  ProductBody,
  ProductData,
  ProductList,
  ProductListQuery,
  ProductParams,
  ProductPatchBody,
} from '../schemas/products';

const tags = ['Products'];
type Body = Static<typeof ProductBody>;
type Variation = NonNullable<Body['variations']>[number];

function variationOf(v: Variation): types.fxpricing.VariationInput {
  return {
    variation_id: v.variation_id,
    name: v.name,
    price: v.price ?? undefined,
    stock: v.stock ?? undefined,
    stock_unlimited: v.stock === null,
  };
}

/** A merchant's own catalogue, per key mode (docs/decisions.md, Products and orders). */
export async function registerProductRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { fxPricing } = deps.clients;
  const one = { 200: successOf(ProductData), ...COMMON_ERRORS };

  app.post<{ Body: Body }>(
    '/products',
    {
      schema: {
        tags,
        security,
        summary: 'Create a product (digital, physical or service), with variations, stock and shipping',
        body: ProductBody,
        response: one,
      },
    },
    async (req) => {
      const b = req.body;
      const product = await fxPricing.call(
        'CreateProduct',
        {
          ...b,
          variations: (b.variations ?? []).map(variationOf),
          stock: b.stock ?? undefined,
          shipping: b.shipping ?? undefined,
        },
        callerMetadata(req),
      );
      return ok(product, 'Product created');
    },
  );

  app.get<{ Querystring: Static<typeof ProductListQuery> }>(
    '/products',
    {
      schema: {
        tags,
        security,
        summary: "List the key mode's products, newest first (filter by type and active; cursor paging)",
        querystring: ProductListQuery,
        response: { 200: successOf(ProductList), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await fxPricing.call('ListProducts', req.query, callerMetadata(req))),
  );

  app.get<{ Params: Static<typeof ProductParams> }>(
    '/products/:product_id',
    { schema: { tags, security, summary: 'A product', params: ProductParams, response: one } },
    async (req) => ok(await fxPricing.call('GetProduct', req.params, callerMetadata(req))),
  );

  app.patch<{ Params: Static<typeof ProductParams>; Body: Static<typeof ProductPatchBody> }>(
    '/products/:product_id',
    {
      schema: {
        tags,
        security,
        summary: 'Change any field; stock set absolutely (stock) or moved by stock_adjustment',
        description:
          'variations replaces the list (send variation_id to keep one and its stock); null clears a ' +
          'field. Send an Idempotency-Key with stock_adjustment: a retried delta is otherwise applied twice.',
        params: ProductParams,
        body: ProductPatchBody,
        response: one,
      },
    },
    async (req) => {
      const b = req.body;
      const product = await fxPricing.call(
        'UpdateProduct',
        {
          product_id: req.params.product_id,
          title: b.title,
          description: b.description,
          type: b.type,
          price: b.price,
          variations: (b.variations ?? []).map(variationOf),
          variations_given: b.variations !== undefined,
          stock: b.stock ?? undefined,
          stock_unlimited: b.stock === null,
          shipping: b.shipping ?? undefined,
          shipping_cleared: b.shipping === null,
          active: b.active,
          installments_allowed: b.installments_allowed,
          stock_adjustment: b.stock_adjustment,
          variation_id: b.variation_id,
        },
        callerMetadata(req),
      );
      return ok(product, 'Product updated');
    },
  );

  app.delete<{ Params: Static<typeof ProductParams> }>(
    '/products/:product_id',
    {
      schema: {
        tags,
        security,
        summary: 'Archive a product: no longer listed or sold; kept for orders and reports',
        params: ProductParams,
        response: one,
      },
    },
    async (req) => ok(await fxPricing.call('ArchiveProduct', req.params, callerMetadata(req)), 'Product archived'),
  );
}
