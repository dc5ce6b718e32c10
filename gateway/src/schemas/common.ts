import { Type, type TSchema } from '@sinclair/typebox';
import { METADATA_KEY_MAX_LENGTH, METADATA_KEY_PATTERN, SAFE_KEY_MAX_LENGTH, SAFE_KEY_PATTERN } from '@ppay/kernel';

/**
 * Pieces every resource schema uses. Response schemas are also the serialisers (fast-json-stringify):
 * fields a proto message carries beyond the schema are never sent, and a proto3 `optional` field
 * that is absent becomes the `null` the spec shows (`default: null`).
 */

/** Error body shared by all routes, for the OpenAPI document. */
export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    error: Type.Object({
      code: Type.String({ description: 'Stable error code from the catalogue (docs/errors.md)' }),
      type: Type.String({
        description:
          'Error group: authentication, permission, invalid_request, not_found, state_conflict, rate_limit, infrastructure',
      }),
      message: Type.String(),
      param: Type.Optional(Type.String()),
      detail: Type.Optional(Type.String()),
      request_id: Type.String(),
    }),
  },
  { $id: 'ErrorResponse', description: 'Error' },
);

export function successOf(data: TSchema, description = 'Success') {
  return Type.Object({ success: Type.Literal(true), message: Type.Optional(Type.String()), data }, { description });
}

/**
 * 429: the gateway's rate limits (per merchant and mode, per client address for failed
 * authentications) and the per-merchant quotas; Retry-After is always sent (H2-13).
 */
export const RATE_LIMITED_RESPONSE = Type.Ref('ErrorResponse', {
  description: 'Too many requests: retry after Retry-After seconds',
  headers: {
    'Retry-After': { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying' },
    'X-RateLimit-Limit': { type: 'integer', description: 'Requests allowed per second (rate limits only)' },
    'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current second' },
    'X-RateLimit-Reset': { type: 'integer', description: 'Seconds until the current window ends' },
  },
});

/** The 5xx answers: the error body; 503 (a service down, its breaker open) says when to retry. */
export const SERVER_ERROR_RESPONSES = {
  500: Type.Ref('ErrorResponse', { description: 'Internal error' }),
  501: Type.Ref('ErrorResponse', { description: 'Not available yet' }),
  503: Type.Ref('ErrorResponse', {
    description: 'A service is unavailable: retry after Retry-After seconds (with the same Idempotency-Key)',
    headers: { 'Retry-After': { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying' } },
  }),
  504: Type.Ref('ErrorResponse', {
    description: 'Timed out: the outcome is unknown, retry with the same Idempotency-Key',
  }),
};

/** Responses documented on every route besides its success body. */
export const COMMON_ERRORS = {
  400: Type.Ref('ErrorResponse'),
  401: Type.Ref('ErrorResponse'),
  403: Type.Ref('ErrorResponse'),
  404: Type.Ref('ErrorResponse'),
  409: Type.Ref('ErrorResponse'),
  422: Type.Ref('ErrorResponse'),
  429: RATE_LIMITED_RESPONSE,
  ...SERVER_ERROR_RESPONSES,
};

/** A field the spec shows as "X or null": a proto3 `optional` that is absent is sent as null. */
export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  return Type.Union([schema, Type.Null()], { default: null, ...options });
}

/**
 * Bounds of what partners send (Stripe's): every string has a maximum length, checked before any
 * pattern; metadata has at most 50 keys of up to 40 characters with scalar values of up to 500.
 */
export const LIMITS = {
  email: 254,
  name: 200,
  url: 2048,
  reference: 255,
  description: 1000,
  country: 100,
  currency: 3,
  metadataKeys: 50,
  metadataKey: METADATA_KEY_MAX_LENGTH,
  metadataValue: 500,
  extraValue: 1000,
  /** Largest amount the API takes in any currency's minor unit (exact in a JS number). */
  amount: Number.MAX_SAFE_INTEGER,
} as const;

export const Amount = (options: Record<string, unknown> = {}) =>
  Type.Integer({ maximum: LIMITS.amount, minimum: -LIMITS.amount, ...options });
export const Email = Type.String({ maxLength: LIMITS.email });
export const Url = (description?: string) => Type.String({ maxLength: LIMITS.url, description });
export const Country = (description?: string) => Type.String({ maxLength: LIMITS.country, description });
/**
 * A product variation's id: also a key of the product's stored stock, so the kernel's safe-key pattern
 * (letters, digits, `_`, `-`, starting with a letter or digit, no inherited name such as `constructor`).
 */
export const VariationId = (description?: string) =>
  Type.String({ minLength: 1, maxLength: SAFE_KEY_MAX_LENGTH, pattern: SAFE_KEY_PATTERN, description });
export const CurrencyCode = (description?: string) => Type.String({ maxLength: LIMITS.currency, description });

const Scalar = (maxLength: number) =>
  Type.Union([Type.String({ maxLength }), Type.Number(), Type.Boolean()], { description: 'string, number or boolean' });

/**
 * Spec 4.1 metadata: scalars only. A nested value is answered 422 `Metadata validation failed`
 * (spec 7.1), the other bounds 400 (see http/validation.ts).
 */
export const ScalarMetadata = Type.Record(
  Type.String({ pattern: METADATA_KEY_PATTERN }),
  Scalar(LIMITS.metadataValue),
  {
    maxProperties: LIMITS.metadataKeys,
    additionalProperties: false,
    description: `At most ${LIMITS.metadataKeys} keys of 1 to ${LIMITS.metadataKey} characters, without \`.\`, \`[\` or \`]\` and not starting with \`$\`; string (up to ${LIMITS.metadataValue}), number or boolean values`,
  },
);

/** Fields the spec calls "not shown" may be sent, as bounded scalars. */
export const ExtraScalar = Type.Union([
  Type.String({ maxLength: LIMITS.extraValue }),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
]);

/** A string enum as plain JSON Schema `enum` (clearer errors and OpenAPI than a union of consts). */
export function StringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

export const ModeEnum = StringEnum(['sandbox', 'live'] as const);

/** Ids are int64 on the wire but exact only up to 2^53 - 1 in JSON and JavaScript: larger ones are a 400. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

export const MerchantIdParams = Type.Object({ merchantId: Type.Integer({ minimum: 1, maximum: MAX_ID }) });

/**
 * A page cursor: the `next_cursor` of an earlier page, base64url text (no padding) of at most 200
 * characters. Any other string is 400 INVALID_CURSOR (http/validation.ts); which strings of this
 * alphabet are cursors only the list that issued them knows.
 */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';
export const Cursor = (maxLength = 200) =>
  Type.String({ minLength: 1, maxLength, pattern: CURSOR_PATTERN, description: 'next_cursor of the previous page' });

/**
 * Patterns for rules the services apply after String.prototype.trim: its whitespace spelled out, as
 * JavaScript's and Python's `\s` differ (validators and fuzzers must read a pattern the same way).
 */
const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** Not blank once trimmed. */
export const NOT_BLANK = `[^${TRIMMED}]`;
/** At least 3 characters once trimmed (two non-blank characters with one between). */
export const AT_LEAST_3_TRIMMED = `${NOT_BLANK}[\\s\\S]+${NOT_BLANK}`;

/**
 * An absolute URL whose host is a domain name (the last label starts with a letter, so it is never read
 * as an IPv4 address), with an optional port, path, query and fragment: what WHATWG URL parsing accepts.
 */
export function absoluteUrlPattern(schemes: string, options: { ipHosts?: boolean } = {}): string {
  const label = '(?![Xx][Nn]--)[A-Za-z0-9-]+';
  const port = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?';
  const domain = `(?:${label}\\.)*(?![Xx][Nn]--)[A-Za-z][A-Za-z0-9-]*\\.?`;
  const octet = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
  const host = options.ipHosts ? `(?:${domain}|${octet}(?:\\.${octet}){3}|\\[[0-9A-Fa-f:.]{2,45}\\])` : domain;
  return `^${schemes}://${host}${port}(?:[/?#][^\\s]*)?$`;
}

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  pages: Type.Integer(),
});

export const apiKeySecurity = [{ apiKey: [] }];
export const userTokenSecurity = [{ userToken: [] }];
export const adminTokenSecurity = [{ adminToken: [] }];
