import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import { CancelBody, FulfilBody, OrderData, OrderList, OrderListQuery, OrderParams } from '../schemas/orders';

const tags = ['Orders'];

/** Orders for the calling merchant's physical products (docs/decisions.md, Products and orders). */
export async function registerOrderRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments } = deps.clients;
  const one = { 200: successOf(OrderData), ...COMMON_ERRORS };

  app.get<{ Querystring: Static<typeof OrderListQuery> }>(
    '/orders',
    {
      schema: {
        tags,
        security,
        summary: 'List orders (newest first; filter by status, product and time; cursor paging)',
        querystring: OrderListQuery,
        response: { 200: successOf(OrderList), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('ListOrders', req.query, callerMetadata(req))),
  );

  app.get<{ Params: Static<typeof OrderParams> }>(
    '/orders/:order_id',
    { schema: { tags, security, summary: 'An order', params: OrderParams, response: one } },
    async (req) => ok(await payments.call('GetOrder', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof OrderParams>; Body: Static<typeof FulfilBody> }>(
    '/orders/:order_id/fulfil',
    {
      schema: {
        tags,
        security,
        summary: 'Mark a paid order shipped (paid → fulfilled), with the carrier and tracking number',
        params: OrderParams,
        body: FulfilBody,
        response: one,
      },
    },
    async (req) =>
      ok(await payments.call('FulfilOrder', { order_id: req.params.order_id, ...req.body }, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof OrderParams> }>(
    '/orders/:order_id/deliver',
    {
      schema: { tags, security, summary: 'Mark a fulfilled order delivered', params: OrderParams, response: one },
    },
    async (req) => ok(await payments.call('DeliverOrder', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof OrderParams>; Body: Static<typeof CancelBody> }>(
    '/orders/:order_id/cancel',
    {
      schema: {
        tags,
        security,
        summary: 'Cancel a paid order: the payment is refunded in full and the stock returned',
        description: 'Only a paid order (not yet fulfilled). A second cancel, or a cancel after fulfilment, is a 409.',
        params: OrderParams,
        body: CancelBody,
        response: one,
      },
    },
    async (req) =>
      ok(await payments.call('CancelOrder', { order_id: req.params.order_id, ...req.body }, callerMetadata(req))),
  );
}
