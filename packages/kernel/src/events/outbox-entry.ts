import type { Mode } from '../caller';
import { newEventId } from '../ids';
import type { EventPayloads, Subject } from './catalogue';

/**
 * An event waiting in its aggregate's `outbox` array: written in the same single-document update as
 * the state change that caused it, published later by the runtime's relay (docs/architecture.md,
 * "Outbox inside the aggregate"). Domain code builds entries with `outboxEvent`.
 */
export interface OutboxEntry {
  event_id: string;
  subject: Subject;
  occurred_at: Date;
  merchant_id?: number;
  mode?: Mode;
  data: unknown;
  traceparent?: string;
}

/** An event larger than this is a bug in its producer: refused when written, never relayed. */
export const MAX_EVENT_BYTES = 256 * 1024;

/**
 * Where the W3C traceparent of the current request comes from. The kernel knows nothing of tracing
 * libraries: the runtime installs the real source when it loads, and without it events carry none.
 */
let traceparentSource: () => string | undefined = () => undefined;

export function setTraceparentSource(source: () => string | undefined): void {
  traceparentSource = source;
}

export function outboxEvent<S extends Subject>(
  subject: S,
  data: EventPayloads[S],
  scope: { merchantId?: number; mode?: Mode } = {},
): OutboxEntry {
  const size = Buffer.byteLength(JSON.stringify(data));
  if (size > MAX_EVENT_BYTES) {
    throw new RangeError(`${subject} event of ${size} bytes exceeds ${MAX_EVENT_BYTES}`);
  }
  return {
    event_id: newEventId(),
    subject,
    occurred_at: new Date(),
    merchant_id: scope.merchantId,
    mode: scope.mode,
    data,
    traceparent: traceparentSource(),
  };
}
