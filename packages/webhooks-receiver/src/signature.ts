import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';

/** The bytes exactly as received. A string is taken as its UTF-8 encoding. */
export type RawBody = string | Buffer | Uint8Array;

export function toBuffer(raw: RawBody): Buffer {
  if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
  if (Buffer.isBuffer(raw)) return raw;
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  throw new TypeError('rawBody must be a string, Buffer or Uint8Array (the body exactly as received)');
}

/**
 * An empty secret would make the HMAC key public knowledge, so it is a programming error rather
 * than a failed verification (typically `WEBHOOK_SECRETS=""` or a trailing comma).
 */
export function normaliseSecrets(secrets: string | readonly string[]): string[] {
  const list = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (list.length === 0) throw new TypeError('at least one webhook secret is required');
  for (const secret of list) {
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new TypeError('webhook secrets must be non-empty strings');
    }
  }
  return list;
}

/** `X-Service-Signature` (spec 5.7): HMAC-SHA256 of the raw body keyed with the whole secret string. */
export function bodyDigest(secret: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

/** `v1` of `X-Service-Signature-V2`: HMAC-SHA256 of `<t>.<raw body>`, so the timestamp is signed too. */
export function timestampedDigest(secret: string, t: number, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}

/** Constant-time: both sides are 32-byte digests, so `timingSafeEqual` never sees unequal lengths. */
export function digestMatches(expected: readonly Buffer[], given: readonly Buffer[]): boolean {
  let matched = false;
  for (const a of expected) {
    for (const b of given) {
      if (a.length === b.length && timingSafeEqual(a, b)) matched = true;
    }
  }
  return matched;
}

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

export function parseHexDigest(value: string, header: string): Buffer {
  if (!HEX_DIGEST.test(value)) {
    throw new WebhookVerificationError('malformed_signature', `${header} must be a 64-character hex HMAC-SHA256`);
  }
  return Buffer.from(value, 'hex');
}

export interface ParsedSignatureV2 {
  t: number;
  v1: Buffer[];
}

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`. Unknown schemes (a future `v2=`) are skipped so that
 * adding one later does not break receivers; a missing or repeated `t`, or no `v1`, is malformed.
 */
export function parseSignatureV2(value: string, header: string): ParsedSignatureV2 {
  let t: number | undefined;
  const v1: Buffer[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new WebhookVerificationError('malformed_signature', `${header} is not t=…,v1=…`);
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined || !UNIX_SECONDS.test(val)) {
        throw new WebhookVerificationError('malformed_signature', `${header} needs exactly one t=<unix seconds>`);
      }
      t = Number(val);
    } else if (key === 'v1') {
      v1.push(parseHexDigest(val, `${header} v1`));
    }
  }
  if (t === undefined || v1.length === 0) {
    throw new WebhookVerificationError('malformed_signature', `${header} needs t=<unix seconds> and at least one v1`);
  }
  return { t, v1 };
}
