import { createHash } from 'node:crypto';
import type { Mode } from '@ppay/kernel';

/**
 * The canonical event store: each platform event a merchant can receive is stored once, in the
 * platform's own (current, internal) shape, and rendered per API key version at send time (spec 9).
 */
export interface WebhookEventRecord {
  /** `evt_` + UUID, derived from the source event, so a redelivered source event maps to the same id. */
  event_id: string;
  event_type: string;
  merchant_id: number;
  mode: Mode;
  occurred_at: Date;
  /** The object the event changes (a charge, a wallet …): `sequence` orders one object's events. */
  object_type: string;
  object_id: string;
  /** The source event's position in its JetStream stream (see EventFanOut.ingest). */
  sequence: number;
  /** The canonical payload (the internal event's data). Renderers turn it into each version's shape. */
  data: Record<string, unknown>;
  source_event_id: string;
  created_at: Date;
}

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed';

export type AttemptErrorClass =
  | 'timeout'
  | 'network_error'
  | 'http_error'
  | 'redirect'
  | 'blocked_target'
  | 'tls_error'
  /** The worker died (kill -9, node lost) while this attempt was in flight; its outcome is unknown. */
  | 'interrupted';

export interface AttemptRecord {
  number: number;
  started_at: Date;
  /** Null for an interrupted attempt. */
  duration_ms: number | null;
  status: number | null;
  error_class: AttemptErrorClass | null;
  success: boolean;
  /** First 1 KB of the receiver's answer. */
  response_excerpt: string;
  url: string;
  api_version: string;
  /** Exactly what was sent, so a partner can debug a signature check (empty when interrupted). */
  request_headers: Record<string, string>;
  request_body: string;
}

/**
 * One event to one API key. Its own document (unique per event and key), claimed with a lease so
 * replicas never send the same attempt twice and a crashed worker's claim expires.
 */
export interface DeliveryRecord {
  delivery_id: string;
  event_id: string;
  key_id: string;
  merchant_id: number;
  /**
   * The merchant the event is about (its payload's `merchant_id`; a sub-merchant for KYC events sent to
   * its operator): delete merchant removes deliveries about a merchant too. Null when the payload has none.
   */
  about_merchant_id: number | null;
  mode: Mode;
  event_type: string;
  status: DeliveryStatus;
  /** Sends started, all rounds, interrupted ones included (persisted before sending). */
  attempt_count: number;
  /** Completed attempts of the current round (spec 6.3: 3). A resend starts a new round. */
  round_attempts: number;
  /** When the next attempt is due; while `delivering`, when the claim's lease expires. */
  next_attempt_at: Date;
  claim_token: string | null;
  claimed_at: Date | null;
  attempts: AttemptRecord[];
  last_error_class: AttemptErrorClass | 'key_inactive' | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * `evt_` + a UUID (version 5 layout) derived from the source event and the receiving merchant:
 * the same JetStream message always yields the same webhook event id, however often it arrives.
 */
export function webhookEventId(sourceEventId: string, merchantId: number): string {
  const h = createHash('sha256').update(`ppay-webhook-event\n${sourceEventId}\n${merchantId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `evt_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function deliveryId(eventId: string, keyId: string): string {
  return `dlv_${createHash('sha256').update(`${eventId}\n${keyId}`).digest('hex').slice(0, 32)}`;
}

/** A delivery as it is first stored: pending, due now, never attempted. */
export function newDelivery(event: WebhookEventRecord, keyId: string, now: Date): DeliveryRecord {
  return {
    delivery_id: deliveryId(event.event_id, keyId),
    event_id: event.event_id,
    key_id: keyId,
    merchant_id: event.merchant_id,
    about_merchant_id: aboutMerchant(event),
    mode: event.mode,
    event_type: event.event_type,
    status: 'pending',
    attempt_count: 0,
    round_attempts: 0,
    next_attempt_at: now,
    claim_token: null,
    claimed_at: null,
    attempts: [],
    last_error_class: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * An attempt whose outcome is unknown: its worker died (kill -9, node lost) while it was in flight,
 * or before it could store what the receiver answered.
 */
export function interruptedAttempt(number: number, startedAt: Date): AttemptRecord {
  return {
    number,
    started_at: startedAt,
    duration_ms: null,
    status: null,
    error_class: 'interrupted',
    success: false,
    response_excerpt: '',
    url: '',
    api_version: '',
    request_headers: {},
    request_body: '',
  };
}

/** The merchant an event is about: its payload's `merchant_id`, when it has one. */
export function aboutMerchant(event: Pick<WebhookEventRecord, 'data'>): number | null {
  const about = event.data.merchant_id;
  return typeof about === 'number' ? about : null;
}
