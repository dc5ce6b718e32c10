import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStatus } from './api-keys/api-key';
import type { AttemptErrorClass, DeliveryRecord, DeliveryStatus } from './deliveries/delivery';
import type { SigningSecrets } from './deliveries/signing';
import type { WebhookEventRecord } from './webhook-events/webhook-event';

/**
 * The outside dependencies that several subdomains use (the delivery worker's own: deliveries/ports.ts).
 */

export interface EventStore {
  /** Inserts the event; false (and nothing written) when its event_id is already stored. */
  insert(event: WebhookEventRecord): Promise<boolean>;
  /** Inserts those not stored yet (by event_id); returns the ids it inserted. */
  insertMany(events: WebhookEventRecord[]): Promise<Set<string>>;
  get(eventId: string): Promise<WebhookEventRecord | null>;
  getForMerchant(merchantId: number, mode: Mode, eventId: string): Promise<WebhookEventRecord | null>;
  list(query: EventQuery): Promise<WebhookEventRecord[]>;
  /** Oldest first by (created_at, event_id): strictly after `after`, created before `until` (the `listen` stream). */
  listCreatedAfter(query: CreatedAfterQuery): Promise<WebhookEventRecord[]>;
  /** Deletes events created before `before`; returns how many. */
  deleteOlderThan(before: Date, limit: number): Promise<number>;
  /**
   * Counts one resend of the event against `quota.max` per window of `quota.windowMs` (a window opens
   * at the first resend after the last one ended). When the window is full: when it ends.
   */
  takeResend(eventId: string, now: Date, quota: { max: number; windowMs: number }): Promise<ResendSlot>;
}

export type ResendSlot = { taken: true } | { taken: false; windowEndsAt: Date };

export interface EventQuery {
  merchant_id: number;
  mode: Mode;
  types?: string[];
  from?: Date;
  to?: Date;
  /** Only events with a delivery in this status (ids resolved by the use case). */
  event_ids?: string[];
  /** Cursor: events strictly older than this (created_at, event_id) pair. */
  before?: { occurred_at: Date; event_id: string };
  limit: number;
}

export interface CreatedAfterQuery {
  merchant_id: number;
  mode: Mode;
  /** An empty event_id means "from this instant on" (every event_id sorts after it). */
  after: { created_at: Date; event_id: string };
  until: Date;
  limit: number;
}

/** The delivery log as the fan-out and the partner's event log use it (the worker's side: AttemptStore). */
export interface DeliveryStore {
  /**
   * Inserts what is missing (unique per event and key) and makes it due; returns the ids that became
   * due (new ones, and unfinished ones a crashed fan-out left without due work).
   */
  insertMany(deliveries: DeliveryRecord[]): Promise<Set<string>>;
  /** The event's deliveries, oldest first, at most `limit`. */
  forEvent(eventId: string, limit?: number): Promise<DeliveryRecord[]>;
  /** One delivery by id, with its due state. */
  get(deliveryId: string): Promise<DeliveryRecord | null>;
  /** Event ids (newest first) of this merchant's deliveries in a status. */
  eventIdsWithStatus(merchantId: number, mode: Mode, status: DeliveryStatus, limit: number): Promise<string[]>;
  /** Starts a new round (pending, due now) for deliveries not being sent right now. */
  requeue(filter: RequeueFilter, now: Date): Promise<number>;
  count(filter: RequeueFilter): Promise<number>;
  deleteOlderThan(before: Date, limit: number): Promise<number>;
}

export interface RequeueFilter {
  merchant_id: number;
  mode: Mode;
  event_id?: string;
  statuses: DeliveryStatus[];
  created_from?: Date;
  created_to?: Date;
  /** Only deliveries that made fewer attempts than this (MAX_ATTEMPTS_PER_DELIVERY). */
  attempts_below?: number;
}

/** The key as the worker needs it at send time (URL, version and secrets may change any time). */
export interface DeliveryKey {
  key_id: string;
  merchant_id: number;
  mode: Mode;
  active: boolean;
  webhook_url: string | null;
  api_version: string;
  secrets: SigningSecrets;
}

export interface DeliveryKeys {
  /** Keys of the merchant that receive its events in `mode`: active, same mode, with a URL. */
  receivers(merchantId: number, mode: Mode): Promise<DeliveryKey[]>;
  get(keyId: string): Promise<DeliveryKey | null>;
}

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowPrivateTargets: boolean;
  timeoutMs: number;
}

export interface SendResult {
  status: number | null;
  duration_ms: number;
  error_class: Exclude<AttemptErrorClass, 'interrupted'> | null;
  response_excerpt: string;
  success: boolean;
}

export interface WebhookSender {
  send(input: SendInput): Promise<SendResult>;
}

/** API keys as stored: managed by api-keys, read by the deliveries' key cache. */
export interface ApiKeyRepository {
  insert(record: ApiKeyRecord, event: OutboxEntry): Promise<void>;
  /** The merchant's keys that are not revoked (active or disabled), oldest first: bounded by the key quota. */
  listUnrevoked(merchantId: number): Promise<ApiKeyRecord[]>;
  /** The merchant's `limit` most recently created revoked keys, newest first. */
  listRevoked(merchantId: number, limit: number): Promise<ApiKeyRecord[]>;
  findForMerchant(merchantId: number, keyId: string): Promise<ApiKeyRecord | null>;
  /** Any merchant's key: the delivery worker's read (it acts for the platform, not a caller). */
  findById(keyId: string): Promise<ApiKeyRecord | null>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /**
   * Applies `changes` and appends `event` atomically, only while the key is in one of `fromStatuses`
   * (and, when given, its `webhook_secret_version` is still `secretVersion`).
   */
  update(
    merchantId: number,
    keyId: string,
    fromStatuses: ApiKeyStatus[],
    changes: ApiKeyChanges,
    event: OutboxEntry,
    secretVersion?: number,
  ): Promise<ApiKeyRecord | null>;
}
