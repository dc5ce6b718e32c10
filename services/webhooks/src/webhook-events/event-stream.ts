import { PlatformError, type Mode } from '@ppay/kernel';
import type { DeliveryKeys, EventStore } from '../ports';
import { EVENT_VIEW_LIMITS, withinBytes } from './attempt-views';
import { deliverableTo, renderEvent } from './renderers';
import type { WebhookEventRecord } from './webhook-event';

/**
 * Events only become visible to the stream once they are this old, so an event whose `created_at`
 * was taken just before a slower insert (or on a replica whose clock is slightly behind) is never
 * skipped by a cursor that already moved past its timestamp.
 */
export const STREAM_SETTLE_MS = 1_000;
export const STREAM_MAX_PAGE = 100;

export interface StreamedEvent {
  event_id: string;
  event_type: string;
  api_version: string;
  body: string;
  cursor: string;
}

interface StreamPosition {
  created_at: Date;
  event_id: string;
}

const CURSOR_PREFIX = 's1';
const EVENT_ID = /^evt_[0-9a-f-]{36}$/;

export function encodeStreamCursor(p: StreamPosition): string {
  return Buffer.from(`${CURSOR_PREFIX}|${p.created_at.toISOString()}|${p.event_id}`).toString('base64url');
}

export function decodeStreamCursor(cursor: string): StreamPosition {
  const parts = cursor.length <= 200 ? Buffer.from(cursor, 'base64url').toString('utf8').split('|') : [];
  const [prefix, at, id] = parts;
  const when = new Date(at ?? '');
  if (
    parts.length !== 3 ||
    prefix !== CURSOR_PREFIX ||
    Number.isNaN(when.getTime()) ||
    (id !== '' && !EVENT_ID.test(id ?? ''))
  ) {
    throw new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' });
  }
  return { created_at: when, event_id: id! };
}

/**
 * The `listen` CLI's source: the calling key's events created after a cursor, oldest
 * first, rendered exactly as a delivery to that key would carry them (its api_version, read at every
 * poll so a version change applies to later events). Nothing is signed here: the CLI signs with a
 * secret of its own, so this never produces a signature a caller could replay against a receiver.
 */
export class EventStream {
  constructor(
    private readonly ports: { events: Pick<EventStore, 'listCreatedAfter'>; keys: Pick<DeliveryKeys, 'get'> },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async poll(
    merchantId: number,
    mode: Mode,
    keyId: string | undefined,
    input: { types?: string[]; cursor?: string; limit?: number },
  ): Promise<{ events: StreamedEvent[]; cursor: string }> {
    const key = keyId ? await this.ports.keys.get(keyId) : null;
    // A key revoked or disabled while streaming ends the stream (within the key cache's lifetime).
    if (!key || !key.active || key.merchant_id !== merchantId || key.mode !== mode) {
      throw new PlatformError('INVALID_API_KEY');
    }
    const until = new Date(this.now().getTime() - STREAM_SETTLE_MS);
    if (!input.cursor) return { events: [], cursor: encodeStreamCursor({ created_at: until, event_id: '' }) };
    const after = decodeStreamCursor(input.cursor);
    const limit = Math.min(Math.max(input.limit ?? STREAM_MAX_PAGE, 1), STREAM_MAX_PAGE);
    const page = await this.ports.events.listCreatedAfter({ merchant_id: merchantId, mode, after, until, limit });
    const wanted = input.types?.length ? new Set(input.types) : undefined;
    const events: StreamedEvent[] = [];
    for (const event of page) {
      if (!deliverableTo(event.event_type, key.api_version)) continue;
      const rendered = renderEvent(event, key.api_version);
      // Either name matches: the current one or the one this version receives (refund.completed).
      if (wanted && !wanted.has(event.event_type) && !wanted.has(rendered.event_type)) continue;
      events.push({
        event_id: event.event_id,
        event_type: rendered.event_type,
        api_version: key.api_version,
        body: rendered.body,
        cursor: positionOf(event),
      });
    }
    // About 1 MiB of bodies per answer: the rest comes with the next poll, from the last one sent.
    const kept = withinBytes(events, (e) => Buffer.byteLength(e.body, 'utf8'), EVENT_VIEW_LIMITS.eventPageDataBytes);
    if (kept.length < events.length) return { events: kept, cursor: kept[kept.length - 1]!.cursor };
    const last = page[page.length - 1];
    return { events, cursor: last ? positionOf(last) : input.cursor };
  }
}

const positionOf = (e: WebhookEventRecord) => encodeStreamCursor({ created_at: e.created_at, event_id: e.event_id });
