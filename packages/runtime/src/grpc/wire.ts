/**
 * A domain value as a proto message: the one generic step between a resource and its proto message,
 * so handlers never copy fields one by one. Dates become ISO 8601 strings (the spec's timestamps);
 * null becomes "absent" (a proto3 `optional` field, which the gateway schema turns back into null);
 * everything else passes as it is. Fields the proto does not declare are dropped by the encoder.
 */
export type Wire<T> = T extends Date
  ? string
  : T extends string | number | boolean | bigint
    ? T
    : T extends null | undefined
      ? undefined
      : T extends readonly (infer U)[]
        ? Wire<U>[]
        : T extends object
          ? { [K in keyof T]: Wire<T[K]> }
          : T;

export function toWire<T>(value: T): Wire<T> {
  return convert(value) as Wire<T>;
}

function convert(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(convert);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const converted = convert(v);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  }
  return value;
}
