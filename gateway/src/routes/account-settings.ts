import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerToMetadata } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../app';
import { userTokenAuth } from '../auth/hooks';
import { ok } from '../http/envelope';
import { COMMON_ERRORS, successOf } from '../http/schemas';

const Settings = Type.Object({
  merchant_id: Type.Integer(),
  customer_pays_fees: Type.Boolean({
    description: 'true: the transaction fee is added to what the customer pays; false: the merchant absorbs it',
  }),
  updated_at: Type.Union([Type.String(), Type.Null()], { description: 'null until the first change' }),
});
const SettingsPatch = Type.Object(
  { customer_pays_fees: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

function view(s: types.marketplace.AccountSettings__Output): Static<typeof Settings> {
  return { merchant_id: s.merchant_id, customer_pays_fees: s.customer_pays_fees, updated_at: s.updated_at || null };
}

const tags = ['Account'];
const security = [{ userToken: [] }];
const response = { 200: successOf(Settings), ...COMMON_ERRORS };

/**
 * Business settings (docs/decisions.md): changed with the dashboard user token like API keys,
 * never with an API key, and valid in both modes.
 */
export async function registerAccountSettingsRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace } = deps.clients;
  app.addHook('preValidation', userTokenAuth(deps));

  app.get(
    '/account/settings',
    { schema: { tags, security, summary: 'Business settings of the signed-in user’s merchant', response } },
    async (req) => ok(view(await marketplace.call('GetAccountSettings', {}, callerToMetadata(req.caller)))),
  );
  app.patch<{ Body: Static<typeof SettingsPatch> }>(
    '/account/settings',
    {
      schema: {
        tags,
        security,
        summary: 'Change business settings (fields left out stay as they are); applies to new charges and sessions',
        body: SettingsPatch,
        response,
      },
    },
    async (req) => ok(view(await marketplace.call('UpdateAccountSettings', req.body, callerToMetadata(req.caller)))),
  );
}
