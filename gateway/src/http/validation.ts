import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Two validators: bodies are validated strictly (a string "100" is not an amount — money is never
 * coerced), while path and query strings are coerced to the declared types as usual.
 */
function ajv(coerceTypes: boolean) {
  const instance = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(instance);
  instance.addKeyword({ keyword: 'example' });
  return instance;
}

const strict = ajv(false);
const coercing = ajv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart !== 'body') return coercing.compile(schema as object);
  const validate = strict.compile(schema as object);
  // A request without a body is judged as an empty object, so optional-only bodies may be omitted
  // and required fields are reported by name rather than as "body must be object". A body that is
  // there (even `null`) is judged as it is.
  const validateBody = (data: unknown) => {
    const valid = validate(data === undefined ? {} : data);
    validateBody.errors = validate.errors;
    return valid;
  };
  validateBody.errors = null as typeof validate.errors;
  return validateBody;
};

/** Turns the first ajv error into a partner-readable sentence and the field it concerns. */
export function describeValidationError(
  errors: Partial<ErrorObject>[],
  context: string,
): { message: string; param?: string } {
  const e = errors[0];
  if (!e) return { message: 'Invalid request' };
  const path = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const params = (e.params ?? {}) as Record<string, unknown>;
  const where = context === 'body' ? '' : `${context} parameter `;
  if (e.keyword === 'required') {
    const field = [path, String(params.missingProperty)].filter(Boolean).join('.');
    return { message: `${where}${field} is required`, param: field };
  }
  if (e.keyword === 'additionalProperties') {
    const field = [path, String(params.additionalProperty)].filter(Boolean).join('.');
    return { message: `Unknown ${where}field ${field}`, param: field };
  }
  if (e.keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[] | undefined)?.join(', ');
    return { message: `${where}${path} must be one of: ${allowed}`, param: path };
  }
  return { message: `${where}${path || context} ${e.message ?? 'is invalid'}`.trim(), param: path || undefined };
}
