import { createHash } from 'node:crypto';
import { signWebhook } from '@ppay/webhooks-receiver';

/**
 * What the durable baseline of `bench -- webhooks` stores and sends per delivery, shaped like the
 * webhooks service's documents (mirrored, not imported: the devstack does not depend on the service).
 * The service's event document (event.repo.ts `toDocument`): 12 fields, the payload as one JSON string.
 * Its delivery document after a first attempt (delivery-documents.repo.ts `toDocument` of the record
 * send-attempt.ts stores): 18 fields, each attempt, with the exact headers and body sent, as one JSON
 * string. The bench prints both sides' stored shapes next to each other (webhooks-durable.ts).
 */

/** The baseline's stream, subject (its own: the platform's consumers never see it) and database. */
export const DURABLE_STREAM = 'BENCH_WEBHOOKS_DURABLE';
export const DURABLE_SUBJECT = 'bench.webhooks-durable.payment.failed';
export const DURABLE_DB = 'ppay_bench_webhooks_durable';

/** A bench event as the baseline's stream carries it: the platform envelope's fields. */
export interface DurableEnvelope {
  event_id: string;
  occurred_at: string;
  merchant_id: number;
  mode: string;
  data: { charge_id: string; merchant_id?: number; completed_at?: string } & Record<string, unknown>;
}

export interface DurableEventDocument {
  _id: string;
  event_type: string;
  merchant_id: number;
  mode: string;
  occurred_at: Date;
  object_type: string;
  object_id: string;
  sequence: number;
  data: string;
  source_event_id: string;
  created_at: Date;
  about_merchant_id: number | null;
}

/** Where one merchant's deliveries go and what signs them. */
export interface DurableReceiver {
  merchant_id: number;
  key_id: string;
  port: number;
  secret: string;
}

export interface DurableRequest {
  body: string;
  headers: Record<string, string>;
}

export interface DurableResult {
  status: number | null;
  duration_ms: number;
  response_excerpt: string;
}

/** The API version the bench's keys are on (the platform's latest), sent and stored with each attempt. */
export const DURABLE_API_VERSION = '2026-03-27';

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** Derived from the source event and merchant like the platform's, so a redelivered message maps to the same id. */
export function durableEventId(sourceEventId: string, merchantId: number): string {
  return `evt_${sha256Hex(`bench-durable\n${sourceEventId}\n${merchantId}`).slice(0, 32)}`;
}

export function eventDocument(
  envelope: DurableEnvelope,
  eventType: string,
  sequence: number,
  now: Date,
): DurableEventDocument {
  const about = envelope.data.merchant_id;
  return {
    _id: durableEventId(envelope.event_id, envelope.merchant_id),
    event_type: eventType,
    merchant_id: envelope.merchant_id,
    mode: envelope.mode,
    occurred_at: new Date(envelope.data.completed_at || envelope.occurred_at),
    object_type: 'charge',
    object_id: envelope.data.charge_id,
    sequence,
    data: JSON.stringify(envelope.data),
    source_event_id: envelope.event_id,
    created_at: now,
    about_merchant_id: typeof about === 'number' ? about : null,
  };
}

/**
 * The payment payload in the shape the platform sends to keys on the latest version (its renderer's
 * `paymentCurrent`): the breakdown as `amount`, without the fields it leaves out. So the bodies sent
 * and stored with each attempt are the platform's size.
 */
export function currentPaymentShape(data: DurableEnvelope['data']): Record<string, unknown> {
  const {
    merchant_id: _merchant,
    amount: _amount,
    total: _total,
    transaction_fee: _fee,
    customer_pays_fees: _paysFees,
    breakdown,
    customer,
    ...rest
  } = data;
  const { country: _country, ...named } = (customer ?? {}) as Record<string, unknown>;
  return { ...rest, amount: breakdown, customer: named };
}

/** The envelope the platform sends (spec 6.1), signed with the platform's scheme (both signature headers). */
export function signedRequest(
  event: DurableEventDocument,
  data: DurableEnvelope['data'],
  receiver: DurableReceiver,
  now: Date,
): DurableRequest {
  const body = JSON.stringify({
    api_version: DURABLE_API_VERSION,
    event_id: event._id,
    event_type: event.event_type,
    occurred_at: event.occurred_at.toISOString(),
    is_live: event.mode === 'live',
    business_id: String(event.merchant_id),
    sequence: event.sequence,
    data: currentPaymentShape(data),
  });
  const signatures = signWebhook(body, receiver.secret, Math.floor(now.getTime() / 1000));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'ppay-webhooks/1.0',
      'x-service-event': event.event_type,
      'x-service-event-id': event._id,
      'x-service-api-version': DURABLE_API_VERSION,
      'x-service-signature': signatures['X-Service-Signature'],
      'x-service-timestamp': signatures['X-Service-Timestamp'],
      'x-service-signature-v2': signatures['X-Service-Signature-V2'],
    },
  };
}

/** The delivery as stored once its first attempt is answered: 2xx succeeded, anything else due again. */
export function deliveryDocument(
  event: DurableEventDocument,
  receiver: DurableReceiver,
  request: DurableRequest,
  result: DurableResult,
  startedAt: Date,
  finishedAt: Date,
) {
  const success = result.status !== null && result.status >= 200 && result.status < 300;
  const errorClass = success ? null : result.status === null ? 'network_error' : 'http_error';
  const attempt = {
    number: 1,
    started_at: startedAt,
    duration_ms: result.duration_ms,
    status: result.status,
    error_class: errorClass,
    success,
    response_excerpt: result.response_excerpt,
    url: `http://127.0.0.1:${receiver.port}/hooks`,
    api_version: DURABLE_API_VERSION,
    request_headers: request.headers,
    request_body: request.body,
  };
  return {
    _id: `dlv_${sha256Hex(`${event._id}\n${receiver.key_id}`).slice(0, 32)}`,
    event_id: event._id,
    key_id: receiver.key_id,
    merchant_id: event.merchant_id,
    about_merchant_id: event.about_merchant_id,
    mode: event.mode,
    event_type: event.event_type,
    status: success ? 'succeeded' : 'pending',
    attempt_count: 1,
    round_attempts: 1,
    next_attempt_at: finishedAt,
    claim_token: null,
    claimed_at: startedAt,
    attempts: [JSON.stringify(attempt)],
    last_error_class: errorClass,
    created_at: startedAt,
    updated_at: finishedAt,
    due_tracked: true,
  };
}
