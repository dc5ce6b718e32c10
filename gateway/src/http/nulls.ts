import type { TSchema } from '@sinclair/typebox';

interface SchemaShape {
  type?: string;
  properties?: Record<string, SchemaShape>;
  required?: string[];
  items?: SchemaShape;
  anyOf?: SchemaShape[];
  default?: unknown;
}

const isNullable = (s: SchemaShape | undefined) => s?.default === null;

/**
 * Puts the spec's `null` into every absent field whose schema says "X or null" (`Nullable`, default
 * null), recursively. The serialiser does this by itself for plain objects; a union of objects
 * (responses whose shape depends on the route, nullable sub-objects) is matched against its branches
 * first, and a branch whose required field is missing would not match — so those are filled here.
 */
export function fillNulls<T>(schema: TSchema, value: T): T {
  return fill(schema as SchemaShape, value) as T;
}

function fill(s: SchemaShape, value: unknown): unknown {
  if (value === null || value === undefined || typeof value !== 'object') return value;
  if (Array.isArray(value)) return s.items ? value.map((v) => fill(s.items!, v)) : value;
  if (s.anyOf) {
    const record = value as Record<string, unknown>;
    const branch = s.anyOf.find(
      (b) =>
        b.type === 'object' &&
        (b.required ?? []).every((k) => k in record || isNullable(b.properties?.[k])) &&
        Object.entries(b.properties ?? {}).every(([k, p]) => !(k in record) || matchesConst(p, record[k])),
    );
    return branch ? fill(branch, value) : value;
  }
  if (!s.properties) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, prop] of Object.entries(s.properties)) {
    if (out[key] === undefined) {
      if (isNullable(prop)) out[key] = null;
    } else {
      out[key] = fill(prop, out[key]);
    }
  }
  return out;
}

/** A single-value enum (a discriminator such as provider: service) must match the value. */
function matchesConst(s: SchemaShape & { enum?: unknown[] }, value: unknown): boolean {
  return !(s.enum && s.enum.length === 1) || s.enum[0] === value;
}
