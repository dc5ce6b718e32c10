import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { Account } from '../schemas/account';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';

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
        response: { 200: successOf(Account), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await marketplace.call('GetAccount', {}, callerMetadata(req))),
  );
}
