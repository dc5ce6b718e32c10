import { Type, type TSchema } from '@sinclair/typebox';

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

/** Responses documented on every route besides its success body. */
export const COMMON_ERRORS = {
  400: Type.Ref('ErrorResponse'),
  401: Type.Ref('ErrorResponse'),
  403: Type.Ref('ErrorResponse'),
  404: Type.Ref('ErrorResponse'),
  409: Type.Ref('ErrorResponse'),
  422: Type.Ref('ErrorResponse'),
  501: Type.Ref('ErrorResponse'),
  503: Type.Ref('ErrorResponse'),
};

/** A field the spec shows as "X or null": a proto3 `optional` that is absent is sent as null. */
export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  return Type.Union([schema, Type.Null()], { default: null, ...options });
}

export const ScalarMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'String, number or boolean values only',
});

/** A string enum as plain JSON Schema `enum` (clearer errors and OpenAPI than a union of consts). */
export function StringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

export const ModeEnum = StringEnum(['sandbox', 'live'] as const);

export const MerchantIdParams = Type.Object({ merchantId: Type.Integer({ minimum: 1 }) });

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  pages: Type.Integer(),
});

/** Operations whose issue has not landed: the response body is not specified yet (they answer 501). */
export const UnspecifiedData = Type.Object({}, { additionalProperties: true });

export const apiKeySecurity = [{ apiKey: [] }];
export const userTokenSecurity = [{ userToken: [] }];
export const adminTokenSecurity = [{ adminToken: [] }];
