import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../app';
import { ok } from '../../http/envelope';
import { COMMON_ERRORS, StringEnum, successOf } from '../../http/schemas';
import { md, security } from './shared';

/** Spec 4.7. */
export async function registerAccountRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace } = deps.clients;
  app.get(
    '/account',
    {
      schema: {
        tags: ['Account'],
        summary: 'Merchant ID and baseline currency of the calling key',
        security,
        response: {
          200: successOf(
            Type.Object({
              merchant_id: Type.Integer(),
              baseline_currency: Type.String(),
              mode: StringEnum(['sandbox', 'live'] as const),
              is_marketplace_operator: Type.Boolean(),
              customer_pays_fees: Type.Boolean({ description: 'Business setting, see GET /account/settings' }),
            }),
          ),
          ...COMMON_ERRORS,
        },
      },
    },
    async (req) => ok(await marketplace.call('GetAccount', {}, md(req))),
  );
}
