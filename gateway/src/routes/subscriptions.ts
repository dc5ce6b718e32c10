import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf, UnspecifiedData } from '../schemas/common';
import { SubscriptionParams, SubscriptionQuery } from '../schemas/subscriptions';

const tags = ['Subscriptions'];
const response = { 200: successOf(UnspecifiedData), ...COMMON_ERRORS };

/** Spec 4.5, 4.6. */
export async function registerSubscriptionRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { subscriptions } = deps.clients;
  app.get<{ Querystring: Static<typeof SubscriptionQuery> }>(
    '/subscriptions',
    { schema: { tags, security, summary: 'List subscriptions', querystring: SubscriptionQuery, response } },
    async (req) => ok(await subscriptions.call('ListSubscriptions', req.query, callerMetadata(req))),
  );
  app.patch<{ Params: Static<typeof SubscriptionParams> }>(
    '/subscriptions/:subscription_id/cancel',
    { schema: { tags, security, summary: 'Cancel an active subscription', params: SubscriptionParams, response } },
    async (req) => ok(await subscriptions.call('CancelSubscription', req.params, callerMetadata(req))),
  );
}
