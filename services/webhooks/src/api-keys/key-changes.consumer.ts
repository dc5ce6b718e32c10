import { STREAMS } from '@ppay/kernel';
import { type NatsContext } from '@ppay/runtime';

/**
 * Calls `changed` whenever any replica publishes an API key change (created, revoked, status, URL
 * or version, secret): a plain NATS subscription on the APIKEYS stream's subjects, not a durable
 * consumer, because it only drops caches (RepositoryDeliveryKeys) and a replica that misses one
 * while disconnected is bounded by the caches' TTL anyway.
 */
export function onApiKeyChanges(nats: NatsContext, changed: () => void): { stop(): void } {
  const subscriptions = STREAMS.APIKEYS.subjects.map((subject) =>
    nats.nc.subscribe(subject, { callback: (err) => !err && changed() }),
  );
  return { stop: () => subscriptions.forEach((s) => s.unsubscribe()) };
}
