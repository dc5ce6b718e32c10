/** Header names of a webhook delivery (spec 6.2, plus the platform's timestamped signature). */
export const WEBHOOK_HEADERS = {
  signature: 'X-Service-Signature',
  timestamp: 'X-Service-Timestamp',
  signatureV2: 'X-Service-Signature-V2',
  eventId: 'X-Service-Event-Id',
  event: 'X-Service-Event',
  apiVersion: 'X-Service-Api-Version',
} as const;

/** A WHATWG `Headers` (fetch, undici, Next.js, Hono…) or anything with the same `get`. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** Node's `IncomingHttpHeaders`, Fastify's and Express's `req.headers`, or a hand-written object. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

export type WebhookHeaders = HeadersLike | HeaderRecord;

function isHeadersLike(headers: WebhookHeaders): headers is HeadersLike {
  return typeof (headers as HeadersLike).get === 'function';
}

/**
 * One header's value, case-insensitively; repeated values are joined with ", " as `Headers.get`
 * does, so both kinds of input behave the same. Empty values count as absent.
 */
export function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  let value: string | undefined;
  if (isHeadersLike(headers)) {
    value = headers.get(name) ?? undefined;
  } else {
    const lower = name.toLowerCase();
    const parts: string[] = [];
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() !== lower) continue;
      const raw = headers[key];
      if (typeof raw === 'string') parts.push(raw);
      else if (Array.isArray(raw)) parts.push(...(raw as readonly string[]));
    }
    value = parts.length > 0 ? parts.join(', ') : undefined;
  }
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
