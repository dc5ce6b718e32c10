import {
  defineConsumer,
  streamForSubject,
  type ConsumerSpec,
  type MerchantTombstones,
  type StreamName,
} from '@ppay/kernel';
import { WEBHOOK_SOURCES } from '../domain/event-sources';
import type { EventFanOut } from '../domain/fan-out';
import type { DeliveryMetrics } from './metrics';

/** Messages handled at once per consumer (JetStream hands out up to 64 per pull). */
const FAN_OUT_CONCURRENCY = 64;

/**
 * Every webhook source subject → the event store and its deliveries. One durable consumer per
 * stream the sources live on (PAYMENTS, SUBSCRIPTIONS, KYC). The message is acknowledged only once the event and all its deliveries
 * are written; any failure throws, so JetStream redelivers it (without limit) and the repeat fills
 * in what is missing (see EventFanOut).
 */
export function webhookConsumers(
  fanOut: EventFanOut,
  metrics: DeliveryMetrics,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): ConsumerSpec[] {
  const byStream = new Map<StreamName, (typeof WEBHOOK_SOURCES)[number][]>();
  for (const source of WEBHOOK_SOURCES) {
    const stream = streamForSubject(source.subject);
    byStream.set(stream, [...(byStream.get(stream) ?? []), source]);
  }
  return [...byStream].map(([stream, sources]) =>
    defineConsumer({
      stream,
      durable: `webhooks_${stream.toLowerCase()}`,
      subjects: sources.map((s) => s.subject),
      // Many at once, so the fan-out writes them in batches; `sequence` is reserved in arrival order.
      concurrency: FAN_OUT_CONCURRENCY,
      async handle(envelope) {
        // An event about a merchant deleted meanwhile (delete merchant) is not stored for anyone.
        const about = (envelope.data as { merchant_id?: unknown }).merchant_id;
        if (typeof about === 'number' && (await tombstones.isDeleted(about, envelope.mode))) return;
        const stored = await fanOut.ingest(envelope);
        if (stored) metrics.events.inc({ event_type: stored.event.event_type });
      },
    }),
  );
}
