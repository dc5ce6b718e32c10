import { PlatformError } from '@ppay/kernel';
import type { AttemptRecord, DeliveryRecord } from '../deliveries/delivery';

/**
 * How much of a delivery's history one answer carries. A delivery keeps every attempt with the exact
 * bytes it sent, and a merchant's resends and large payloads grow that without limit, so answers are
 * bounded by design instead (docs/decisions.md, Hardening 2, H2-1): an event shows each delivery's
 * newest attempts with their bodies cut, earlier attempts are paged, and one attempt's whole body is
 * its own read.
 */
export const EVENT_VIEW_LIMITS = {
  /** Newest attempts shown per delivery in an event (one round, spec 6.3). */
  attemptsPerDelivery: 3,
  /** Characters of a request body shown in an event or a page of attempts. */
  bodyExcerptChars: 2_048,
  /** Deliveries an event can have (the fan-out creates no more; see EventFanOut.fanOut). */
  deliveriesPerEvent: 20,
  attemptPageDefault: 10,
  attemptPageMax: 20,
  /** Bytes of event data one page of events carries at most (at least one event per page). */
  eventPageDataBytes: 1024 * 1024,
} as const;

export type AttemptView = AttemptRecord & { request_body_truncated: boolean; request_body_bytes: number };

/** An attempt as answers show it: its body cut to the excerpt, unless `whole`. */
export function attemptView(a: AttemptRecord, whole = false): AttemptView {
  const cut = !whole && a.request_body.length > EVENT_VIEW_LIMITS.bodyExcerptChars;
  return {
    ...a,
    request_body: cut ? a.request_body.slice(0, EVENT_VIEW_LIMITS.bodyExcerptChars) : a.request_body,
    request_body_truncated: cut,
    request_body_bytes: Buffer.byteLength(a.request_body, 'utf8'),
  };
}

export function deliveryResource(d: DeliveryRecord) {
  const shown = d.attempts.slice(-EVENT_VIEW_LIMITS.attemptsPerDelivery);
  return {
    delivery_id: d.delivery_id,
    key_id: d.key_id,
    status: d.status,
    attempt_count: d.attempt_count,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
    last_error_class: d.last_error_class,
    created_at: d.created_at,
    updated_at: d.updated_at,
    attempts: shown.map((a) => attemptView(a)),
    attempts_has_more: d.attempts.length > shown.length,
  };
}

/** A page of a delivery's attempts, oldest first; the cursor is the last attempt number shown. */
export function attemptPage(d: DeliveryRecord, input: { limit?: number; cursor?: string }) {
  const limit = Math.min(
    Math.max(input.limit ?? EVENT_VIEW_LIMITS.attemptPageDefault, 1),
    EVENT_VIEW_LIMITS.attemptPageMax,
  );
  const after = input.cursor === undefined ? 0 : decodeAttemptCursor(input.cursor);
  const rest = d.attempts.filter((a) => a.number > after);
  const items = rest.slice(0, limit);
  const hasMore = rest.length > limit;
  return {
    attempts: items.map((a) => attemptView(a)),
    has_more: hasMore,
    next_cursor: hasMore ? encodeAttemptCursor(items[items.length - 1]!.number) : null,
  };
}

/** One attempt with its whole body (the last stored under that number). */
export function attemptOf(d: DeliveryRecord, number: number): AttemptView {
  const found = d.attempts.filter((a) => a.number === number).pop();
  if (!found) throw new PlatformError('ATTEMPT_NOT_FOUND', undefined, { param: 'number' });
  return attemptView(found, true);
}

const encodeAttemptCursor = (n: number) => Buffer.from(`a|${n}`).toString('base64url');

function decodeAttemptCursor(cursor: string): number {
  const [prefix, n] = (cursor.length <= 40 ? Buffer.from(cursor, 'base64url').toString('utf8') : '').split('|');
  const number = Number(n);
  if (prefix !== 'a' || !Number.isSafeInteger(number) || number < 0) {
    throw new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' });
  }
  return number;
}

/**
 * The longest prefix of `items` whose sizes add up to at most `budget` bytes, always at least one
 * item (one event is at most 256 KiB, far inside every message limit).
 */
export function withinBytes<T>(items: T[], size: (item: T) => number, budget: number): T[] {
  let used = 0;
  const kept: T[] = [];
  for (const item of items) {
    used += size(item);
    if (kept.length && used > budget) break;
    kept.push(item);
  }
  return kept;
}
