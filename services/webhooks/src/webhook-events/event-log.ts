import { randomUUID } from 'node:crypto';
import { PlatformError, type Mode } from '@ppay/kernel';
import { sendSigned } from '../deliveries/signed-request';
import type { EventFanOut } from '../deliveries/fan-out';
import type { DeliveryKeys, DeliveryStore, EventStore, SendResult, WebhookSender } from '../ports';
import { renderEvent } from './renderers';
import { attemptOf, attemptPage, deliveryResource, EVENT_VIEW_LIMITS, withinBytes } from './attempt-views';
import { MAX_ATTEMPTS_PER_DELIVERY, type DeliveryRecord, type DeliveryStatus } from '../deliveries/delivery';
import type { WebhookEventRecord } from './webhook-event';

/** Spec: partners see 30 days of events (the retention job deletes older ones). */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_PAGE_SIZE = 100;
/** Resends of one event per hour (a window opens at the first resend after the last one ended; H2-3). */
export const RESEND_QUOTA = { max: 5, windowMs: 60 * 60 * 1000 } as const;
export const DEFAULT_PAGE_SIZE = 20;
/** How many matching deliveries a delivery-status filter looks at (newest first). */
const STATUS_FILTER_SCAN = 1000;

export interface EventListInput {
  types?: string[];
  from?: Date;
  to?: Date;
  delivery_status?: DeliveryStatus;
  limit?: number;
  cursor?: string;
}

export type EventSummaryStatus = DeliveryStatus | 'no_deliveries';

/** The partner-facing event: the current (2026-03-27) rendering of its data, plus where it went. */
export function eventResource(event: WebhookEventRecord, deliveries: DeliveryRecord[]) {
  const envelope = JSON.parse(renderEvent(event, '9999-12-31').body) as { data: Record<string, unknown> };
  return {
    event_id: event.event_id,
    event_type: event.event_type,
    occurred_at: event.occurred_at,
    is_live: event.mode === 'live',
    business_id: String(event.merchant_id),
    sequence: event.sequence,
    object_type: event.object_type,
    object_id: event.object_id,
    delivery_status: summaryStatus(deliveries),
    data: JSON.stringify(envelope.data),
    created_at: event.created_at,
  };
}

/** Worst first: a partner filtering for trouble sees an event as failed if any delivery failed. */
export function summaryStatus(deliveries: Pick<DeliveryRecord, 'status'>[]): EventSummaryStatus {
  if (deliveries.length === 0) return 'no_deliveries';
  for (const s of ['failed', 'delivering', 'pending'] as const) if (deliveries.some((d) => d.status === s)) return s;
  return 'succeeded';
}

function encodeCursor(e: WebhookEventRecord): string {
  return Buffer.from(`${e.occurred_at.toISOString()}|${e.event_id}`).toString('base64url');
}

function decodeCursor(cursor: string): { occurred_at: Date; event_id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const when = new Date(at ?? '');
  if (!id || !/^evt_[0-9a-f-]{36}$/.test(id) || Number.isNaN(when.getTime())) {
    throw new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' });
  }
  return { occurred_at: when, event_id: id };
}

export interface TestResult {
  event_id: string;
  url: string;
  result: SendResult;
}

/**
 * The partner's view of its events (GET /events, GET /events/{id}) and the ways to send them
 * again (resend, recover). Scoped to the calling key's merchant and mode, like every partner call.
 */
export class EventLog {
  constructor(
    private readonly ports: {
      events: EventStore;
      deliveries: DeliveryStore;
      keys: DeliveryKeys;
      sender: WebhookSender;
      fanOut: EventFanOut;
    },
    private readonly options: { allowPrivateTargets: boolean; timeoutMs: number },
    private readonly wake: () => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(merchantId: number, mode: Mode, input: EventListInput) {
    const limit = Math.min(Math.max(input.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
    const before = input.cursor ? decodeCursor(input.cursor) : undefined;
    const eventIds = input.delivery_status
      ? await this.ports.deliveries.eventIdsWithStatus(merchantId, mode, input.delivery_status, STATUS_FILTER_SCAN)
      : undefined;
    const page = await this.ports.events.list({
      merchant_id: merchantId,
      mode,
      types: input.types,
      from: input.from,
      to: input.to,
      event_ids: eventIds,
      before,
      limit: limit + 1,
    });
    const deliveries = await Promise.all(
      page.slice(0, limit).map((e) => this.ports.deliveries.forEvent(e.event_id, EVENT_VIEW_LIMITS.deliveriesPerEvent)),
    );
    const all = page.slice(0, limit).map((e, i) => eventResource(e, deliveries[i]!));
    // A page carries `limit` events or about 1 MiB of their data, whichever comes first.
    const items = withinBytes(all, (e) => Buffer.byteLength(e.data, 'utf8'), EVENT_VIEW_LIMITS.eventPageDataBytes);
    const hasMore = page.length > items.length;
    return {
      events: items,
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(page[items.length - 1]!) : null,
    };
  }

  async get(merchantId: number, mode: Mode, eventId: string) {
    const event = await this.find(merchantId, mode, eventId);
    const deliveries = await this.ports.deliveries.forEvent(event.event_id, EVENT_VIEW_LIMITS.deliveriesPerEvent);
    return { ...eventResource(event, deliveries), deliveries: deliveries.map(deliveryResource) };
  }

  /** A page of one delivery's attempts, oldest first (an event shows only the newest). */
  async attempts(
    merchantId: number,
    mode: Mode,
    ref: { event_id: string; delivery_id: string },
    page: { limit?: number; cursor?: string },
  ) {
    return attemptPage(await this.delivery(merchantId, mode, ref), page);
  }

  /** One attempt with the whole body it sent. */
  async attempt(merchantId: number, mode: Mode, ref: { event_id: string; delivery_id: string; number: number }) {
    return attemptOf(await this.delivery(merchantId, mode, ref), ref.number);
  }

  private async delivery(merchantId: number, mode: Mode, ref: { event_id: string; delivery_id: string }) {
    const event = await this.find(merchantId, mode, ref.event_id);
    const delivery = await this.ports.deliveries.get(ref.delivery_id);
    if (!delivery || delivery.event_id !== event.event_id) {
      throw new PlatformError('DELIVERY_NOT_FOUND', undefined, { param: 'delivery_id' });
    }
    return delivery;
  }

  /**
   * Sends the event again to every key that receives it now: a new round of 3 attempts for each
   * existing delivery not in flight, and a delivery for keys added since. Same event_id.
   */
  async resend(merchantId: number, mode: Mode, eventId: string) {
    const event = await this.find(merchantId, mode, eventId);
    // Every delivery made all its attempts (H2-2): refused before the resend quota is spent.
    const deliveries = await this.ports.deliveries.forEvent(eventId);
    if (deliveries.length && deliveries.every((d) => d.attempt_count >= MAX_ATTEMPTS_PER_DELIVERY)) {
      throw new PlatformError('WEBHOOK_ATTEMPT_LIMIT_REACHED', undefined, {
        param: 'event_id',
        detail: `Every delivery of this event has made ${MAX_ATTEMPTS_PER_DELIVERY} attempts`,
      });
    }
    const now = this.now();
    const slot = await this.ports.events.takeResend(event.event_id, now, RESEND_QUOTA);
    if (!slot.taken) {
      const retryAfterSeconds = Math.max(1, Math.ceil((slot.windowEndsAt.getTime() - now.getTime()) / 1000));
      throw new PlatformError('RESEND_LIMIT_REACHED', undefined, {
        detail: `at most ${RESEND_QUOTA.max} resends of one event per hour; retry in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      });
    }
    await this.ports.fanOut.fanOut(event);
    await this.ports.deliveries.requeue(
      {
        merchant_id: merchantId,
        mode,
        event_id: eventId,
        statuses: ['pending', 'succeeded', 'failed'],
        attempts_below: MAX_ATTEMPTS_PER_DELIVERY,
      },
      this.now(),
    );
    this.wake();
    return this.get(merchantId, mode, eventId);
  }

  /** Bulk resend of failed deliveries created in [since, until] (until defaults to now). */
  async recover(merchantId: number, mode: Mode, input: { since: Date; until?: Date; dry_run?: boolean }) {
    const until = input.until ?? this.now();
    if (input.since > until) {
      throw new PlatformError('VALIDATION_FAILED', 'since must not be after until', { param: 'since' });
    }
    const filter = {
      merchant_id: merchantId,
      mode,
      statuses: ['failed'] as DeliveryStatus[],
      created_from: input.since,
      created_to: until,
      attempts_below: MAX_ATTEMPTS_PER_DELIVERY,
    };
    if (input.dry_run) return { count: await this.ports.deliveries.count(filter), dry_run: true };
    const count = await this.ports.deliveries.requeue(filter, this.now());
    if (count) this.wake();
    return { count, dry_run: false };
  }

  /**
   * POST /api-keys/{id}/webhook/test: a signed `ping` to the key's URL now, outside the event log
   * and its retries, with the receiver's answer. The body is ours, never the caller's.
   */
  async ping(merchantId: number, keyId: string): Promise<TestResult> {
    const key = await this.ports.keys.get(keyId);
    if (!key || key.merchant_id !== merchantId || key.mode === undefined) {
      throw new PlatformError('API_KEY_NOT_FOUND', undefined, { param: 'id' });
    }
    if (!key.webhook_url) throw new PlatformError('WEBHOOK_URL_NOT_SET', undefined, { param: 'id' });
    const now = this.now();
    const event: WebhookEventRecord = {
      event_id: `evt_${randomUUID()}`,
      event_type: 'ping',
      merchant_id: merchantId,
      mode: key.mode,
      occurred_at: now,
      object_type: 'api_key',
      object_id: key.key_id,
      sequence: 0,
      data: { key_id: key.key_id, message: 'Webhook test from the platform' },
      source_event_id: '',
      created_at: now,
    };
    const { result } = await sendSigned(this.ports.sender, { key, url: key.webhook_url }, event, now, this.options);
    return { event_id: event.event_id, url: key.webhook_url, result };
  }

  /** The 30-day retention (FerretDB has no TTL index): a periodic job deletes in batches. */
  async purgeExpired(batch = 1000): Promise<number> {
    const before = new Date(this.now().getTime() - EVENT_RETENTION_MS);
    const deliveries = await this.ports.deliveries.deleteOlderThan(before, batch);
    const events = await this.ports.events.deleteOlderThan(before, batch);
    return deliveries + events;
  }

  private async find(merchantId: number, mode: Mode, eventId: string): Promise<WebhookEventRecord> {
    const event = await this.ports.events.getForMerchant(merchantId, mode, eventId);
    if (!event) throw new PlatformError('EVENT_NOT_FOUND', undefined, { param: 'event_id' });
    return event;
  }
}
