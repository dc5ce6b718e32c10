import { Type, type TSchema } from '@sinclair/typebox';

/** Error body shared by all routes, for the OpenAPI document. */
export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    error: Type.Object({
      code: Type.String({ description: 'Stable error code from the catalogue (docs/errors.md)' }),
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

export const ScalarMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'String, number or boolean values only',
});

/** A string enum as plain JSON Schema `enum` (clearer errors and OpenAPI than a union of consts). */
export function StringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}
