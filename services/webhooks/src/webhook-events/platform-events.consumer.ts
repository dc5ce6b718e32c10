import { streamForSubject, type StreamName } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec, type MerchantTombstones } from '@ppay/runtime';
import { WEBHOOK_SOURCES } from './event-sources';
import type { EventFanOut } from '../deliveries/fan-out';
import { aboutMerchant } from './webhook-event';
import type { EventMetrics } from './event.metrics';

const IN_PROGRESS_EVERY_MS = 10_000;

/**
 * Every webhook source subject → the event store and its deliveries. One durable consumer per
 * stream the sources live on (PAYMENTS, SUBSCRIPTIONS, KYC). The message is acknowledged only once
 * the event is stored and every delivery is either answered and stored or stored as due work; any
 * failure throws, so JetStream redelivers it (without limit) and the repeat fills in what is missing
 * (see EventFanOut). `concurrency` messages are handled at once (WEBHOOKS_EVENTS_IN_FLIGHT): each holds
 * its first attempts while they wait for a slot, are sent and are recorded, so more than the send pool
 * keeps the pool busy while others are written, and the writes go in bigger batches.
 */
export function webhookConsumers(
  fanOut: EventFanOut,
  metrics: EventMetrics,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
  concurrency: number,
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
      // Many at once, so the fan-out writes them in batches.
      concurrency,
      async handle(envelope, msg) {
        // An event about a merchant deleted meanwhile (delete merchant) is not stored for anyone.
        const about = aboutMerchant({ data: envelope.data as unknown as Record<string, unknown> });
        if (about !== null && (await tombstones.isDeleted(about, envelope.mode))) return;
        // The handler holds the message through first attempts (a slot wait, 10 s, the writes): it
        // tells JetStream it is still at work, so the 30 s ack wait never redelivers under a live handler.
        const inProgress = setInterval(() => msg.working(), IN_PROGRESS_EVERY_MS);
        try {
          const stored = await fanOut.ingest(envelope, msg.info.streamSequence);
          if (stored) metrics.events.inc({ event_type: stored.event.event_type });
        } finally {
          clearInterval(inProgress);
        }
      },
    }),
  );
}
