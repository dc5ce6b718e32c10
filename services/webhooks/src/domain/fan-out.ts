import type { EventEnvelope } from '@ppay/kernel';
import { sourceFor } from './event-sources';
import type { DeliveryKeys, DeliveryStore, EventStore, SequenceCounter } from './ports';
import { deliverableTo } from './renderers';
import { deliveryId, webhookEventId, type DeliveryRecord, type WebhookEventRecord } from './webhook-event';

/**
 * Platform event → one stored webhook event → one delivery per receiving key. Three writes (the
 * counter, the event, the deliveries) without a transaction, each idempotent: the JetStream message
 * is acknowledged only after all of them, so a crash anywhere redelivers it and the repeat finds the
 * event (same derived event_id; the stored sequence wins) and inserts only the missing deliveries.
 */
export class EventFanOut {
  constructor(
    private readonly ports: {
      events: EventStore;
      deliveries: DeliveryStore;
      sequences: SequenceCounter;
      keys: DeliveryKeys;
    },
    /** Tells the local worker there is work (other replicas find it by polling). */
    private readonly wake: () => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Returns the stored event and how many deliveries were new, or null for a subject that is not a webhook. */
  async ingest(envelope: EventEnvelope): Promise<{ event: WebhookEventRecord; created: number } | null> {
    const source = sourceFor(envelope.subject);
    if (!source) return null;
    const merchantId = source.merchant(envelope) ?? envelope.merchant_id;
    const mode = envelope.mode;
    // Sandbox and live never mix: an event without both is a publisher bug, retried until fixed.
    if (merchantId === undefined || (mode !== 'sandbox' && mode !== 'live')) {
      throw new Error(`${envelope.subject} event ${envelope.event_id} has no merchant or mode`);
    }
    const eventId = webhookEventId(envelope.event_id, merchantId);
    const object = source.object(envelope);
    // Insert first (the common case is a new event); a repeat costs a sequence number (a gap,
    // which receivers tolerate: sequence orders, it does not count) and reads the stored event.
    const sequence = await this.ports.sequences.next(`${mode}:${object.type}:${object.id}`);
    const candidate: WebhookEventRecord = {
      event_id: eventId,
      event_type: source.event_type,
      merchant_id: merchantId,
      mode,
      occurred_at: new Date(source.occurredAt(envelope)),
      object_type: object.type,
      object_id: object.id,
      sequence,
      data: envelope.data as unknown as Record<string, unknown>,
      source_event_id: envelope.event_id,
      created_at: this.now(),
    };
    const event = (await this.ports.events.insert(candidate)) ? candidate : await this.ports.events.get(eventId);
    if (!event) throw new Error(`event ${eventId} vanished while being stored`);
    return { event, created: await this.fanOut(event) };
  }

  /** Deliveries for every receiving key that has none yet (also used by resend for keys added since). */
  async fanOut(event: WebhookEventRecord): Promise<number> {
    const keys = await this.ports.keys.receivers(event.merchant_id, event.mode);
    const now = this.now();
    const deliveries = keys
      .filter((k) => deliverableTo(event.event_type, k.api_version))
      .map((k) => newDelivery(event, k.key_id, now));
    const created = deliveries.length ? await this.ports.deliveries.insertMany(deliveries) : 0;
    if (created) this.wake();
    return created;
  }
}

export function newDelivery(event: WebhookEventRecord, keyId: string, now: Date): DeliveryRecord {
  return {
    delivery_id: deliveryId(event.event_id, keyId),
    event_id: event.event_id,
    key_id: keyId,
    merchant_id: event.merchant_id,
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
