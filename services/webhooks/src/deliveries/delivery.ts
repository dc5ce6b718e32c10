import { createHash } from 'node:crypto';
import type { Mode } from '@ppay/kernel';
import { aboutMerchant, type WebhookEventRecord } from '../webhook-events/webhook-event';

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
 * The most attempts one delivery makes, all rounds and interrupted ones together (Hardening 2 item 2):
 * the first round and nine resends. Each attempt is kept in the delivery's document with what was sent,
 * so this bounds the document: 30 × (the event's payload, itself bounded by its resource's limits,
 * + headers and a 1 KB answer excerpt). A resend of an event whose deliveries all reached it is 409
 * `WEBHOOK_ATTEMPT_LIMIT_REACHED`; bulk recovery skips them; a claim past it sends nothing.
 */
export const MAX_ATTEMPTS_PER_DELIVERY = 30;

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
  /** `attempt_limit`: MAX_ATTEMPTS_PER_DELIVERY reached, nothing more is sent. */
  last_error_class: AttemptErrorClass | 'key_inactive' | 'attempt_limit' | null;
  created_at: Date;
  updated_at: Date;
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

/** What one attempt (or a claim that sent nothing) leaves a delivery with. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  next_attempt_at: Date;
  /** The delivery's counters after this outcome (sends started, all rounds; completed in this round). */
  attempt_count: number;
  round_attempts: number;
  /** Appended to the delivery's attempts. */
  attempts: AttemptRecord[];
  last_error_class: DeliveryRecord['last_error_class'];
}

/** A delivery's fields once an outcome is recorded, its attempts aside (those are appended). */
export function fieldsAfter(outcome: AttemptOutcome, now: Date) {
  return {
    status: outcome.status,
    next_attempt_at: outcome.next_attempt_at,
    attempt_count: outcome.attempt_count,
    round_attempts: outcome.round_attempts,
    claim_token: null,
    last_error_class: outcome.last_error_class,
    updated_at: now,
  };
}
