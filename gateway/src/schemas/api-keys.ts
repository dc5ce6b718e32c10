import { Type } from '@sinclair/typebox';
import { absoluteUrlPattern, ModeEnum, Nullable, StringEnum } from './common';

/**
 * An absolute http(s) URL without credentials, of a host name or an IP address; empty: none. Which hosts may
 * receive webhooks is the deployment's (loopback and private addresses only where the platform opens them to
 * sandbox keys, as the local launcher does), and live keys need https: decided when saved, with every
 * address the host resolves to (spec 6.7; 400 INVALID_WEBHOOK_URL).
 */
const WebhookUrl = (description: string) =>
  Type.String({
    maxLength: 2048,
    pattern: `^$|${absoluteUrlPattern('[Hh][Tt][Tt][Pp][Ss]?', { ipHosts: true })}`,
    description,
  });

/** Public view of a key: never the key itself, never the secret. */
export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  mode: ModeEnum,
  masked_key: Type.String({ description: 'First and last characters only; the full key is shown once, at creation' }),
  status: StringEnum(['active', 'disabled', 'revoked'] as const),
  is_active: Type.Boolean(),
  webhook_url: Nullable(Type.String()),
  webhook_secret_hint: Type.String(),
  api_version: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  revoked_at: Nullable(Type.String()),
});

export const ApiKeyWithSecrets = Type.Intersect([
  ApiKey,
  Type.Object({ api_key: Type.String(), webhook_secret: Type.String() }),
]);

export const RotatedSecret = Type.Object({
  id: Type.String(),
  webhook_secret: Type.String(),
  webhook_secret_hint: Type.String(),
});

export const KeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const RotateSecretBody = Type.Object(
  {
    expire_previous: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: the replaced secret stops signing at once (after a leak) instead of for 24 h alongside the new one',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A webhook payload version (spec 9): a calendar date; which dates are supported is the service's to say. */
const ApiVersion = Type.String({
  pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
  maxLength: 10,
  example: '2026-03-27',
});

export const CreateKeyBody = Type.Object(
  {
    type: Type.Optional(
      StringEnum(['sandbox', 'live'] as const, { description: 'The key type (spec 2.1); default sandbox' }),
    ),
    mode: Type.Optional(StringEnum(['sandbox', 'live'] as const, { deprecated: true, description: 'Alias of type' })),
    name: Type.Optional(Type.String({ maxLength: 100 })),
    webhook_url: Type.Optional(WebhookUrl('Where this key’s webhooks are sent; empty: none')),
    api_version: Type.Optional(ApiVersion),
  },
  { additionalProperties: false },
);

export const ToggleBody = Type.Object({ enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

export const WebhookBody = Type.Object(
  {
    webhook_url: Type.Optional(WebhookUrl('Empty string removes the URL')),
    api_version: Type.Optional(ApiVersion),
  },
  { additionalProperties: false, minProperties: 1, description: 'webhook_url and/or api_version' },
);
