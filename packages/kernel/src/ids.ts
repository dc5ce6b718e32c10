import { createHash, randomFillSync, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes carved from a pool that the CSPRNG refills 4 KiB at a time, each byte used once: one
 * `randomFillSync` per ~150 ids instead of one per id, because a request id is made for every request
 * (docs/performance.md, "Where a request's CPU goes"). `crypto.randomUUID` keeps the same kind of cache.
 */
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniformly random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Opaque resource id such as `key_7Hq…` (24 base62 chars ≈ 143 bits). */
export function prefixedId(prefix: string, length = 24): string {
  return `${prefix}_${randomBase62(length)}`;
}

/** Webhook/event id: `evt_` + UUID (spec 6.1). */
export function newEventId(): string {
  return `evt_${randomUUID()}`;
}

export function newRequestId(): string {
  return `req_${randomBase62(20)}`;
}

/** Order-independent JSON, so {"a":1,"b":2} and {"b":2,"a":1} are the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A request's fingerprint: the SHA-256 of its canonical JSON (same parameters, same fingerprint). */
export function requestFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

/**
 * Names every JavaScript object already answers to (Object.prototype's members that would otherwise
 * pass SAFE_KEY_PATTERN, and `prototype`): as an object key they read an inherited member, not data.
 */
const INHERITED_NAMES = [
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
  'prototype',
] as const;

export const SAFE_KEY_MAX_LENGTH = 64;

/**
 * A client-chosen id that is also a key of a stored map (a document path such as `stock_levels.<id>`)
 * or of an object: letters, digits, `_` and `-`, starting with a letter or digit, at most 64
 * characters, not an inherited name. So it is never a path separator (`.`), an operator (`$…`), the
 * prototype (`__proto__`) or a key the platform keeps for itself (`_`). The same pattern is the
 * gateway's schema, so the OpenAPI document states it. Linear: a fixed-word lookahead, then one class.
 */
export const SAFE_KEY_PATTERN = `^(?!(?:${INHERITED_NAMES.join('|')})$)[A-Za-z0-9][A-Za-z0-9_-]{0,${SAFE_KEY_MAX_LENGTH - 1}}$`;
const SAFE_KEY = new RegExp(SAFE_KEY_PATTERN);

/** Whether a client string may be used as a stored map key (the length is checked before the pattern). */
export function isSafeKey(value: unknown): value is string {
  return typeof value === 'string' && value.length <= SAFE_KEY_MAX_LENGTH && SAFE_KEY.test(value);
}

export const METADATA_KEY_MAX_LENGTH = 40;

/**
 * A metadata key (Stripe's bounds: up to 40 characters, no `[` or `]`). Metadata is stored as an
 * object whose keys are the partner's, so a key is never a path separator (`.`), an operator (`$…`)
 * or the prototype (`__proto__`). Linear: a fixed-word lookahead, then two classes.
 */
export const METADATA_KEY_PATTERN = `^(?!__proto__$)[^.$\\[\\]][^.\\[\\]]{0,${METADATA_KEY_MAX_LENGTH - 1}}$`;
const METADATA_KEY = new RegExp(METADATA_KEY_PATTERN, 'u');

/** Whether a client string may be a metadata key (the length is checked before the pattern). */
export function isMetadataKey(value: unknown): value is string {
  return typeof value === 'string' && value.length <= METADATA_KEY_MAX_LENGTH * 2 && METADATA_KEY.test(value);
}
