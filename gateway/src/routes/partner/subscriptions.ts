import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { StringEnum } from '../../http/schemas';
import { generic, md } from './shared';

/** Spec 4.5, 4.6. */
export async function registerSubscriptionRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { subscriptions } = deps.clients;
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
}
