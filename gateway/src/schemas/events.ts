import { Type } from '@sinclair/typebox';
import { Cursor, Nullable, StringEnum } from './common';

/** Webhook events and their deliveries (spec 6; the partner event log). */

const DateTime = (description?: string) => Type.String({ format: 'date-time', maxLength: 40, description });
const EventId = Type.String({ minLength: 1, maxLength: 64, description: '`evt_` + UUID' });

export const EventParams = Type.Object({ event_id: EventId });

const DeliveryStatus = StringEnum(['pending', 'delivering', 'succeeded', 'failed'] as const);

export const EventListQuery = Type.Object(
  {
    type: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: '^[a-z_.,]+$',
        description: 'Event type, or several separated by commas (e.g. payment.succeeded,payment.failed)',
      }),
    ),
    from: Type.Optional(DateTime('Events that occurred at or after this time')),
    to: Type.Optional(DateTime('Events that occurred before this time')),
    delivery_status: Type.Optional(DeliveryStatus),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);

const Attempt = Type.Object({
  number: Type.Integer(),
  started_at: DateTime(),
  duration_ms: Nullable(Type.Integer(), { description: 'null when the attempt was interrupted by a crash' }),
  status: Nullable(Type.Integer(), { description: "The receiver's HTTP status; null when none arrived" }),
  error_class: Nullable(
    StringEnum([
      'timeout',
      'network_error',
      'http_error',
      'redirect',
      'blocked_target',
      'tls_error',
      'interrupted',
    ] as const),
  ),
  success: Type.Boolean(),
  response_excerpt: Type.String({ description: "First 1 KB of the receiver's answer" }),
  url: Type.String(),
  api_version: Type.String(),
  request_headers: Type.Record(Type.String(), Type.String(), { description: 'Exactly the headers sent' }),
  request_body: Type.String({
    description:
      'Exactly the bytes sent (and signed). In an event and in a page of attempts, the first 2,048 characters: GET …/attempts/{number} answers the whole body',
  }),
  request_body_truncated: Type.Boolean({ description: 'true when request_body is cut' }),
  request_body_bytes: Type.Integer({ description: 'Size of the whole body in bytes (UTF-8)' }),
});

const Delivery = Type.Object({
  delivery_id: Type.String(),
  key_id: Type.String(),
  status: DeliveryStatus,
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(DateTime()),
  last_error_class: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
  attempts: Type.Array(Attempt, { description: 'The newest attempts (at most 3), oldest first' }),
  attempts_has_more: Type.Boolean({
    description: 'Earlier attempts exist: page them with GET /events/{event_id}/deliveries/{delivery_id}/attempts',
  }),
});

const eventFields = {
  event_id: Type.String(),
  event_type: Type.String(),
  occurred_at: DateTime(),
  is_live: Type.Boolean(),
  business_id: Type.String(),
  sequence: Type.Integer({
    description:
      'Grows with every change of the object (charge, wallet …), not by one: drop an update whose sequence is lower than one you have',
  }),
  object_type: Type.String(),
  object_id: Type.String(),
  delivery_status: StringEnum(['pending', 'delivering', 'succeeded', 'failed', 'no_deliveries'] as const),
  data: Type.Object({}, { additionalProperties: true, description: 'The 2026-03-27 rendering of the payload' }),
  created_at: DateTime(),
};

export const EventSummary = Type.Object(eventFields);
export const EventDetail = Type.Object({ ...eventFields, deliveries: Type.Array(Delivery) });

export const EventList = Type.Object({
  events: Type.Array(EventSummary),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});

const DeliveryId = Type.String({ minLength: 1, maxLength: 64, description: '`dlv_` + 32 hex digits' });
export const DeliveryParams = Type.Object({ event_id: EventId, delivery_id: DeliveryId });
export const AttemptParams = Type.Object({
  event_id: EventId,
  delivery_id: DeliveryId,
  number: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'The attempt number' }),
});
export const AttemptListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 10 })),
    cursor: Type.Optional(Cursor(40)),
  },
  { additionalProperties: false },
);
export const AttemptList = Type.Object({
  attempts: Type.Array(Attempt),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});
export const AttemptDetail = Attempt;

export const RecoverBody = Type.Object(
  {
    since: DateTime('Failed deliveries created at or after this time'),
    until: Type.Optional(DateTime('… and at or before this time (default: now)')),
    dry_run: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const RecoverResult = Type.Object({ count: Type.Integer(), dry_run: Type.Boolean() });

export const WebhookTestResult = Type.Object({
  event_id: Type.String(),
  url: Type.String(),
  success: Type.Boolean(),
  status: Nullable(Type.Integer()),
  latency_ms: Type.Integer(),
  error_class: Nullable(Type.String()),
  response_excerpt: Type.String(),
});

const ReadyData = Type.Object({}, { additionalProperties: false });
const EventData = Type.Object({
  event_id: Type.String(),
  event_type: Type.String(),
  api_version: Type.String(),
  body: Type.String({
    description:
      "The envelope exactly as a delivery to this key carries it (JSON text, the key's api_version), unsigned",
  }),
});
const ErrorData = Type.Object({
  code: Type.String({ description: 'A catalogue code (docs/errors.md)' }),
  message: Type.String(),
});
const READY = { description: 'First frame: where the stream starts' };
const EVENT = { description: 'One event' };
const ERROR = { description: 'Ends the stream (reconnect with Last-Event-ID when the code is SERVICE_UNAVAILABLE)' };
const ReadyId = Type.String({ description: 'Resume after this frame with Last-Event-ID' });
const EventIdLine = Type.String({ description: 'Resume after this event with Last-Event-ID' });
const EventTypeLine = Type.String({ description: 'The event type as this key receives it, e.g. payment.succeeded' });

/**
 * One frame of GET /events/stream (Server-Sent Events): its `id:`, `event:` and `data:` lines, `data`
 * being this JSON object on one line. Referenced from the stream's `text/event-stream` response
 * (`x-sse-frame`; OpenAPI 3.0 cannot state a sequence), so typed clients get the frame types (H2-13).
 */
export const EventStreamFrame = Type.Union(
  [
    Type.Object({ id: ReadyId, event: Type.Literal('ready'), data: ReadyData }, READY),
    Type.Object({ id: EventIdLine, event: EventTypeLine, data: EventData }, EVENT),
    Type.Object({ event: Type.Literal('error'), data: ErrorData }, ERROR),
  ],
  {
    $id: 'EventStreamFrame',
    description: 'One frame of GET /events/stream; comment lines (`: heartbeat`) come between frames',
  },
);

/**
 * An SSE `data:` line: the frame's data as one line of JSON text (its object: x-sse-frame). OpenAPI 3.0
 * has no contentSchema, so a pattern pins how each kind of line begins.
 */
const JsonLine = (pattern: string) =>
  Type.String({ pattern, description: 'One line of JSON: the data of the frame (x-sse-frame)' });

/**
 * The schema of each event of the stream as an SSE reader parses it (`id`, `event`, and `data` as the
 * text of its line): what OpenAPI 3.0 puts under `text/event-stream` `schema`, one event at a time.
 */
export const EventStreamEvent = Type.Union(
  [
    Type.Object({ id: ReadyId, event: Type.Literal('ready'), data: JsonLine('^\\{\\}$') }, READY),
    Type.Object({ id: EventIdLine, event: EventTypeLine, data: JsonLine('^\\{"event_id":".*\\}$') }, EVENT),
    Type.Object({ event: Type.Literal('error'), data: JsonLine('^\\{"code":".*\\}$') }, ERROR),
  ],
  { description: 'Server-Sent Events: one event per frame (x-sse-frame: the frame with its data parsed)' },
);
