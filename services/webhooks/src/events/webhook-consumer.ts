import { defineConsumer, streamForSubject, type ConsumerSpec, type StreamName } from '@ppay/kernel';
import { WEBHOOK_SOURCES } from '../domain/event-sources';
import type { EventFanOut } from '../domain/fan-out';
import type { DeliveryMetrics } from './metrics';

/**
 * Every webhook source subject → the event store and its deliveries. One durable consumer per
 * stream the sources live on (PAYMENTS, SUBSCRIPTIONS, KYC). The message is acknowledged only once the event and all its deliveries
 * are written; any failure throws, so JetStream redelivers it (without limit) and the repeat fills
 * in what is missing (see EventFanOut).
 */
/** Messages handled at once per consumer (JetStream hands out up to 64 per pull). */
const FAN_OUT_CONCURRENCY = 64;

export function webhookConsumers(fanOut: EventFanOut, metrics: DeliveryMetrics): ConsumerSpec[] {
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
        const stored = await fanOut.ingest(envelope);
        if (stored) metrics.events.inc({ event_type: stored.event.event_type });
      },
    }),
  );
}
