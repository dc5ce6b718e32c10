import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import {
  ApiKey,
  ApiKeyWithSecrets,
  CreateKeyBody,
  KeyParams,
  RotateSecretBody,
  RotatedSecret,
  ToggleBody,
  WebhookBody,
} from '../schemas/api-keys';
import { WebhookTestResult } from '../schemas/events';
import { COMMON_ERRORS, successOf, userTokenSecurity as security } from '../schemas/common';
import { Type } from '@sinclair/typebox';

const tags = ['API keys'];

/** Spec 4.8: key management with the dashboard user token (x-id-key), not an API key. */
export async function registerApiKeyRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { webhooks } = deps.clients;

  app.post<{ Body: Static<typeof CreateKeyBody> }>(
    '/create-api-key',
    {
      schema: {
        tags,
        security,
        summary: 'Create an API key (the key and its webhook secret are shown only in this response)',
        body: CreateKeyBody,
        response: { 201: successOf(ApiKeyWithSecrets), ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      // `type` is the spec's name; the older `mode` is read only when `type` is absent.
      const { type, mode, ...body } = req.body ?? {};
      const created = await webhooks.call(
        'CreateApiKey',
        { ...body, mode: type ?? mode ?? 'sandbox' },
        callerMetadata(req),
      );
      reply.header('cache-control', 'no-store');
      return reply
        .status(201)
        .send(
          ok(
            { ...created.key!, api_key: created.api_key, webhook_secret: created.webhook_secret },
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
        description:
          'Every key that is not revoked (at most 20 per mode) and the 20 most recently created revoked keys, oldest first.',
        response: { 200: successOf(Type.Object({ api_keys: Type.Array(ApiKey) })), ...COMMON_ERRORS },
      },
    },
    async (req) => ok({ api_keys: (await webhooks.call('ListApiKeys', {}, callerMetadata(req))).keys }),
  );

  app.delete<{ Params: Static<typeof KeyParams> }>(
    '/api-keys/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke an API key (permanent)',
        params: KeyParams,
        response: { 200: successOf(ApiKey), ...COMMON_ERRORS },
      },
    },
    async (req) =>
      ok(await webhooks.call('RevokeApiKey', { key_id: req.params.id }, callerMetadata(req)), 'API key revoked'),
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
        response: { 200: successOf(ApiKey), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const key = await webhooks.call(
        'ToggleApiKeyStatus',
        { key_id: req.params.id, enabled: req.body?.enabled },
        callerMetadata(req),
      );
      return ok(key, key.status === 'active' ? 'API key enabled' : 'API key disabled');
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
        response: { 200: successOf(ApiKey), ...COMMON_ERRORS },
      },
    },
    async (req) =>
      ok(
        await webhooks.call('UpdateWebhook', { ...req.body, key_id: req.params.id }, callerMetadata(req)),
        'Webhook settings updated',
      ),
  );

  app.post<{ Params: Static<typeof KeyParams>; Body: Static<typeof RotateSecretBody> }>(
    '/api-keys/:id/regenerate-webhook-secret',
    {
      schema: {
        tags,
        security,
        summary: 'Rotate the webhook secret (the new secret is shown only in this response)',
        description:
          'Deliveries sign with the new and the replaced secret for 24 h (X-Service-Signature-V2), or with the new one ' +
          'only when `expire_previous` is true. Two rotations at once: one wins, the other is 409 CONFLICT (retry it).',
        params: KeyParams,
        body: RotateSecretBody,
        response: { 200: successOf(RotatedSecret), ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const rotated = await webhooks.call(
        'RegenerateWebhookSecret',
        { key_id: req.params.id, expire_previous: req.body?.expire_previous ?? false },
        callerMetadata(req),
      );
      reply.header('cache-control', 'no-store');
      return ok(rotated, 'Store the new webhook secret now: it is not shown again');
    },
  );

  app.post<{ Params: Static<typeof KeyParams> }>(
    '/api-keys/:id/webhook/test',
    {
      schema: {
        tags,
        security,
        summary: "Send a signed `ping` event to the key's webhook URL now and report the receiver's answer",
        params: KeyParams,
        response: { 200: successOf(WebhookTestResult), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      // The receiver has the spec's 10 s (6.3): the call's deadline leaves room for it.
      const res = await webhooks.call('TestWebhook', { key_id: req.params.id }, callerMetadata(req), {
        deadlineMs: 12_000,
      });
      return ok(
        res,
        res.success ? 'The receiver accepted the test event' : 'The receiver did not accept the test event',
      );
    },
  );
}
