import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerToMetadata } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../app';
import { userTokenAuth } from '../auth/hooks';
import { ok } from '../http/envelope';
import { COMMON_ERRORS, StringEnum, successOf } from '../http/schemas';

/** Public view of a key: never the key itself, never the secret. */
const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  mode: StringEnum(['sandbox', 'live'] as const),
  masked_key: Type.String({ description: 'First and last characters only; the full key is shown once, at creation' }),
  status: StringEnum(['active', 'disabled', 'revoked'] as const),
  is_active: Type.Boolean(),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  webhook_secret_hint: Type.String(),
  api_version: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});

function view(key: types.webhooks.ApiKey__Output): Static<typeof ApiKeyView> {
  return {
    id: key.id,
    name: key.name,
    mode: key.mode as 'sandbox' | 'live',
    masked_key: key.masked_key,
    status: key.status as 'active' | 'disabled' | 'revoked',
    is_active: key.status === 'active',
    webhook_url: key.webhook_url || null,
    webhook_secret_hint: key.webhook_secret_hint,
    api_version: key.api_version,
    created_at: key.created_at,
    updated_at: key.updated_at,
    revoked_at: key.revoked_at || null,
  };
}

const KeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
type KeyRequest = FastifyRequest<{ Params: Static<typeof KeyParams> }>;

const CreateKeyBody = Type.Object(
  {
    mode: Type.Optional(StringEnum(['sandbox', 'live'] as const, { default: 'sandbox' })),
    name: Type.Optional(Type.String({ maxLength: 100 })),
    webhook_url: Type.Optional(Type.String({ maxLength: 2048 })),
    api_version: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
  },
  { additionalProperties: false },
);
const ToggleBody = Type.Object({ enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const WebhookBody = Type.Object(
  {
    webhook_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Empty string removes the URL' })),
    api_version: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-03-27' })),
  },
  { additionalProperties: false },
);

const tags = ['API keys'];
const security = [{ userToken: [] }];

/** Spec 4.8: key management with the dashboard user token (x-id-key), not an API key. */
export async function registerKeyRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const webhooks = deps.clients.webhooks;
  // Authenticate before validating, so a bad token is a 401 whatever the body holds.
  app.addHook('preValidation', userTokenAuth(deps));
  const md = (req: FastifyRequest) => callerToMetadata(req.caller);

  app.post<{ Body: Static<typeof CreateKeyBody> }>(
    '/create-api-key',
    {
      schema: {
        tags,
        security,
        summary: 'Create an API key (the key and its webhook secret are shown only in this response)',
        body: CreateKeyBody,
        response: {
          201: successOf(
            Type.Intersect([ApiKeyView, Type.Object({ api_key: Type.String(), webhook_secret: Type.String() })]),
          ),
          ...COMMON_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const body = req.body ?? {};
      const created = await webhooks.call(
        'CreateApiKey',
        { mode: body.mode ?? 'sandbox', name: body.name, webhook_url: body.webhook_url, api_version: body.api_version },
        md(req),
      );
      reply.header('cache-control', 'no-store');
      return reply
        .status(201)
        .send(
          ok(
            { ...view(created.key!), api_key: created.api_key, webhook_secret: created.webhook_secret },
            'Store the API key and webhook secret now: they are not shown again',
          ),
        );
    },
  );

  app.get(
    '/api-keys',
    {
      schema: {
        tags,
        security,
        summary: 'List API keys (masked)',
        response: { 200: successOf(Type.Object({ api_keys: Type.Array(ApiKeyView) })), ...COMMON_ERRORS },
      },
    },
    async (req) => ok({ api_keys: (await webhooks.call('ListApiKeys', {}, md(req))).keys.map(view) }),
  );

  app.delete(
    '/api-keys/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke an API key (permanent)',
        params: KeyParams,
        response: { 200: successOf(ApiKeyView), ...COMMON_ERRORS },
      },
    },
    async (req: KeyRequest) =>
      ok(view(await webhooks.call('RevokeApiKey', { key_id: req.params.id }, md(req))), 'API key revoked'),
  );

  app.put<{ Params: Static<typeof KeyParams>; Body: Static<typeof ToggleBody> }>(
    '/api-keys/:id/toggle-status',
    {
      schema: {
        tags,
        security,
        summary: 'Enable or disable an API key (flips the state unless `enabled` is given)',
        params: KeyParams,
        body: ToggleBody,
        response: { 200: successOf(ApiKeyView), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const enabled = req.body?.enabled;
      const key = await webhooks.call('ToggleApiKeyStatus', { key_id: req.params.id, enabled }, md(req));
      return ok(view(key), key.status === 'active' ? 'API key enabled' : 'API key disabled');
    },
  );

  app.put<{ Params: Static<typeof KeyParams>; Body: Static<typeof WebhookBody> }>(
    '/api-keys/:id/webhook',
    {
      schema: {
        tags,
        security,
        summary: 'Set the webhook URL and/or the webhook api_version of a key',
        params: KeyParams,
        body: WebhookBody,
        response: { 200: successOf(ApiKeyView), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const key = await webhooks.call(
        'UpdateWebhook',
        { key_id: req.params.id, webhook_url: body.webhook_url, api_version: body.api_version },
        md(req),
      );
      return ok(view(key), 'Webhook settings updated');
    },
  );

  app.post(
    '/api-keys/:id/regenerate-webhook-secret',
    {
      schema: {
        tags,
        security,
        summary: 'Rotate the webhook secret (the new secret is shown only in this response)',
        params: KeyParams,
        response: {
          200: successOf(
            Type.Object({ id: Type.String(), webhook_secret: Type.String(), webhook_secret_hint: Type.String() }),
          ),
          ...COMMON_ERRORS,
        },
      },
    },
    async (req: KeyRequest, reply) => {
      const rotated = await webhooks.call('RegenerateWebhookSecret', { key_id: req.params.id }, md(req));
      reply.header('cache-control', 'no-store');
      return ok(
        {
          id: rotated.key!.id,
          webhook_secret: rotated.webhook_secret,
          webhook_secret_hint: rotated.key!.webhook_secret_hint,
        },
        'Store the new webhook secret now: it is not shown again',
      );
    },
  );
}
