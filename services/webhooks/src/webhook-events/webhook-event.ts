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

/** The merchant an event is about: its payload's `merchant_id`, when it has one. */
export function aboutMerchant(event: Pick<WebhookEventRecord, 'data'>): number | null {
  const about = event.data.merchant_id;
  return typeof about === 'number' ? about : null;
}
