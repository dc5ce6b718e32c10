import { createHmac } from 'node:crypto';

/**
 * Delivery signatures. The algorithm is shared with the published receiver SDK
 * (@ppay/webhooks-receiver) through packages/webhooks-receiver/test-vectors.json, which both test
 * suites check; the service does not import the client package, so the SDK can change its API
 * without touching the platform.
 *
 *  - X-Service-Signature (spec 5.7): hex HMAC-SHA256 of the raw body with the current secret.
 *  - X-Service-Timestamp: unix seconds (informational; the signed copy is `t` below).
 *  - X-Service-Signature-V2: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` per secret, newest
 *    first, so receivers can refuse replays and either secret works during a rotation.
 */
export interface SigningSecrets {
  current: string;
  /** Only during the overlap after a rotation (see `signingSecrets`). */
  previous?: string;
}

export interface DeliverySignatureHeaders {
  'X-Service-Signature': string;
  'X-Service-Timestamp': string;
  'X-Service-Signature-V2': string;
}

/** How long deliveries stay verifiable with the secret a rotation replaced (Svix: 24 h). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

function hmacHex(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload, 'utf8').digest('hex');
}

export function signDelivery(body: string, secrets: SigningSecrets, unixSeconds: number): DeliverySignatureHeaders {
  // Above 1e11 the value is almost certainly milliseconds.
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0 || unixSeconds >= 1e11) {
    throw new RangeError('unixSeconds must be whole unix seconds');
  }
  if (!secrets.current) throw new RangeError('a current webhook secret is required');
  const keys =
    secrets.previous && secrets.previous !== secrets.current ? [secrets.current, secrets.previous] : [secrets.current];
  const v1 = keys.map((secret) => `v1=${hmacHex(secret, `${unixSeconds}.${body}`)}`);
  return {
    'X-Service-Signature': hmacHex(secrets.current, body),
    'X-Service-Timestamp': String(unixSeconds),
    'X-Service-Signature-V2': [`t=${unixSeconds}`, ...v1].join(','),
  };
}

/** The secrets to sign with at `now`: the replaced one only until ROTATION_OVERLAP_MS after the rotation. */
export function signingSecrets(
  current: string,
  previous: { secret: string; rotated_at: Date } | null | undefined,
  now: Date,
): SigningSecrets {
  const overlapping = previous && now.getTime() - previous.rotated_at.getTime() < ROTATION_OVERLAP_MS;
  return overlapping ? { current, previous: previous.secret } : { current };
}
