import { WEBHOOK_HEADERS } from './headers';
import { bodyDigest, normaliseSecrets, timestampedDigest, toBuffer, type RawBody } from './signature';

export interface WebhookSignatureHeaders {
  'X-Service-Signature': string;
  'X-Service-Timestamp': string;
  'X-Service-Signature-V2': string;
}

/** Anything at or above this is almost certainly milliseconds (it is the year 5138 in seconds). */
const MAX_UNIX_SECONDS = 1e11;

/**
 * The signature headers the platform sends for `rawBody` at unix time `t` (seconds), for testing
 * a receiver without the platform. With several secrets (newest first, as during a rotation),
 * `X-Service-Signature` uses only the first and the V2 header carries one `v1` per secret.
 */
export function signWebhook(rawBody: RawBody, secrets: string | readonly string[], t: number): WebhookSignatureHeaders {
  const keys = normaliseSecrets(secrets);
  if (!Number.isSafeInteger(t) || t < 0 || t >= MAX_UNIX_SECONDS) {
    throw new TypeError('t must be a unix timestamp in whole seconds');
  }
  const body = toBuffer(rawBody);
  const v1 = keys.map((secret) => `v1=${timestampedDigest(secret, t, body).toString('hex')}`);
  return {
    [WEBHOOK_HEADERS.signature]: bodyDigest(keys[0], body).toString('hex'),
    [WEBHOOK_HEADERS.timestamp]: String(t),
    [WEBHOOK_HEADERS.signatureV2]: [`t=${t}`, ...v1].join(','),
  };
}
