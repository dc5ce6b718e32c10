import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { AccountSettings, AccountSettingsPatch } from '../schemas/account';
import { COMMON_ERRORS, successOf, userTokenSecurity as security } from '../schemas/common';

const tags = ['Account'];
const response = { 200: successOf(AccountSettings), ...COMMON_ERRORS };

/**
 * Business settings (docs/decisions.md 31): changed with the dashboard user token like API keys,
 * never with an API key, and valid in both modes.
 */
export async function registerAccountSettingsRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace } = deps.clients;
  app.get(
    '/account/settings',
    { schema: { tags, security, summary: 'Business settings of the signed-in user’s merchant', response } },
    async (req) => ok(await marketplace.call('GetAccountSettings', {}, callerMetadata(req))),
  );
  app.patch<{ Body: Static<typeof AccountSettingsPatch> }>(
    '/account/settings',
    {
      schema: {
        tags,
        security,
        summary: 'Change business settings (fields left out stay as they are); applies to new charges and sessions',
        body: AccountSettingsPatch,
        response,
      },
    },
    async (req) => ok(await marketplace.call('UpdateAccountSettings', req.body ?? {}, callerMetadata(req))),
  );
}
