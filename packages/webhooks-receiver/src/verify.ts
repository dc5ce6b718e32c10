import { WebhookVerificationError } from './errors';
import type { WebhookEvent } from './event';
import { readHeader, WEBHOOK_HEADERS, type WebhookHeaders } from './headers';
import {
  bodyDigest,
  digestMatches,
  normaliseSecrets,
  parseHexDigest,
  parseSignatureV2,
  timestampedDigest,
  toBuffer,
  type RawBody,
} from './signature';

export interface VerifyWebhookOptions {
  /** How far the signed timestamp may be from now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** Clock in milliseconds, for tests. Default `Date.now`. */
  now?: () => number;
  /**
   * Default true: only the timestamped `X-Service-Signature-V2` is accepted, so a captured
   * delivery cannot be replayed after the tolerance. False also accepts the body-only
   * `X-Service-Signature` of spec 5.7 when V2 is absent (no replay protection).
   */
  requireTimestamp?: boolean;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Checks that a delivery comes from the platform and is recent, then returns its envelope,
 * parsed from the exact bytes that were signed. Throws `WebhookVerificationError` otherwise.
 *
 * `secrets` accepts several values so a receiver can keep the old secret for a while after
 * rotating it; any match is enough.
 */
export function verifyWebhook<T = unknown>(
  rawBody: RawBody,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent<T> {
  const keys = normaliseSecrets(secrets);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError('toleranceSeconds must be a non-negative number');
  }
  const body = toBuffer(rawBody);
  const v2 = readHeader(headers, WEBHOOK_HEADERS.signatureV2);
  if (v2 !== undefined) {
    verifyTimestamped(body, v2, keys, tolerance, options.now ?? Date.now);
  } else if (options.requireTimestamp === false) {
    verifyBodyOnly(body, readHeader(headers, WEBHOOK_HEADERS.signature), keys);
  } else {
    const hint = readHeader(headers, WEBHOOK_HEADERS.signature)
      ? ` (only ${WEBHOOK_HEADERS.signature} was sent; pass requireTimestamp: false to accept it without replay protection)`
      : '';
    throw new WebhookVerificationError('missing_signature', `${WEBHOOK_HEADERS.signatureV2} header is missing${hint}`);
  }
  return parseEnvelope<T>(body, readHeader(headers, WEBHOOK_HEADERS.eventId));
}

/**
 * The signature is checked before the clock, so a timestamp error always means "genuine but stale
 * (or a skewed clock)", never noise from a forger.
 */
function verifyTimestamped(body: Buffer, header: string, keys: string[], tolerance: number, now: () => number) {
  const { t, v1 } = parseSignatureV2(header, WEBHOOK_HEADERS.signatureV2);
  const expected = keys.map((secret) => timestampedDigest(secret, t, body));
  if (!digestMatches(expected, v1)) {
    throw new WebhookVerificationError('invalid_signature', 'No signature matches the body and the given secrets');
  }
  const nowSeconds = Math.floor(now() / 1000);
  if (nowSeconds - t > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `Signed ${nowSeconds - t} s ago, more than the ${tolerance} s tolerance`,
    );
  }
  if (t - nowSeconds > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `Signed ${t - nowSeconds} s in the future, more than the ${tolerance} s tolerance (check this server's clock)`,
    );
  }
}

function verifyBodyOnly(body: Buffer, header: string | undefined, keys: string[]) {
  if (header === undefined) {
    throw new WebhookVerificationError(
      'missing_signature',
      `Neither ${WEBHOOK_HEADERS.signatureV2} nor ${WEBHOOK_HEADERS.signature} is present`,
    );
  }
  const given = parseHexDigest(header, WEBHOOK_HEADERS.signature);
  const expected = keys.map((secret) => bodyDigest(secret, body));
  if (!digestMatches(expected, [given])) {
    throw new WebhookVerificationError(
      'invalid_signature',
      'The signature does not match the body and the given secrets',
    );
  }
}

/** Parsed from the signed bytes, never from a re-serialised object; only the fields we rely on are checked. */
function parseEnvelope<T>(body: Buffer, headerEventId: string | undefined): WebhookEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('malformed_payload', 'The body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WebhookVerificationError('malformed_payload', 'The body is not a JSON object');
  }
  const envelope = parsed as Partial<WebhookEvent<T>>;
  if (typeof envelope.event_id !== 'string' || typeof envelope.event_type !== 'string') {
    throw new WebhookVerificationError('malformed_payload', 'The body has no string event_id and event_type');
  }
  if (headerEventId !== envelope.event_id) {
    throw new WebhookVerificationError(
      'event_id_mismatch',
      headerEventId === undefined
        ? `${WEBHOOK_HEADERS.eventId} header is missing`
        : `${WEBHOOK_HEADERS.eventId} does not equal event_id in the body`,
    );
  }
  return envelope as WebhookEvent<T>;
}
