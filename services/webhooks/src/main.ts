import './instrument';
import { parsePreviousKeys, SecretBox } from '@ppay/kernel';
import { ensureIndexes, MerchantTombstones, OutboxRelay, runService } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { apiKeyModel, MongoApiKeyRepository } from './api-keys/api-key.repo';
import { ApiKeyService } from './api-keys/api-keys';
import { apiKeyHandlers } from './api-keys/api-keys.handlers';
import { KeyHasher } from './api-keys/credentials';
import { onApiKeyChanges } from './api-keys/key-changes.consumer';
import { webhooksConfig } from './config';
import { SPEC_POLICY } from './deliveries/delivery-policy';
import { DeliveryWorker } from './deliveries/delivery-worker';
import { deliveryMetrics, deliveryMetricsPort } from './deliveries/delivery.metrics';
import { MongoDeliveryStore } from './deliveries/delivery.repo';
import { deliveryModels } from './deliveries/delivery-documents.repo';
import { ensureDueEntries } from './deliveries/due-migration.repo';
import { RepositoryDeliveryKeys } from './deliveries/delivery-keys';
import { EventFanOut } from './deliveries/fan-out';
import { destroyAgents, HttpWebhookSender } from './deliveries/http-sender.adapter';
import { webhookDns } from './deliveries/dns-resolver.adapter';
import { checkWebhookUrl } from './deliveries/ssrf';
import { EventLog } from './webhook-events/event-log';
import { eventMetrics } from './webhook-events/event.metrics';
import { dropSequenceCounters, eventModel, MongoEventStore } from './webhook-events/event.repo';
import { eventHandlers } from './webhook-events/events.handlers';
import { EventStream } from './webhook-events/event-stream';
import { webhookConsumers } from './webhook-events/platform-events.consumer';
import { beforeWebhooksPurge, MERCHANT_DATA } from './merchant-data.repo';

const rejectAfter = (ms: number) =>
  new Promise<never>((_, reject) => setTimeout(() => reject(new Error('DNS lookup timed out')), ms).unref());

void runService<types.webhooks.WebhooksServiceHandlers, (typeof webhooksConfig)['properties']>({
  name: 'webhooks',
  extraConfig: webhooksConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const counters = deliveryMetrics(metrics.registry);
    const eventCounters = eventMetrics(metrics.registry);
    const model = apiKeyModel(mongo);
    const eventsModel = eventModel(mongo);
    const models = deliveryModels(mongo);
    await ensureIndexes([model, eventsModel, models.deliveries, models.due]);
    if (await dropSequenceCounters(mongo)) log.info('dropped webhook_sequences (sequence is the stream position now)');
    const relay = new OutboxRelay(model, nats, log, metrics);
    // A key written here is forgotten by this replica's delivery caches before the call returns.
    const repo = new MongoApiKeyRepository(model, (id) => {
      deliveryKeys.keysChanged();
      relay.relaySoon(id);
    });
    const box = new SecretBox(
      Buffer.from(config.SECRETS_ENCRYPTION_KEY, 'base64'),
      config.SECRETS_ENCRYPTION_KEY_ID,
      parsePreviousKeys(config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    );
    const allowPrivateTargets = config.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
    const keys = new ApiKeyService(
      repo,
      new KeyHasher(Buffer.from(config.API_KEY_PEPPER, 'base64')),
      box,
      (raw, mode) =>
        checkWebhookUrl(raw, {
          mode,
          allowPrivateTargets,
          // Bounded: a slow resolver must not hold a dashboard request (unresolved names are allowed).
          resolve: async (host) =>
            (await Promise.race([webhookDns.resolve(host), rejectAfter(2_000)])).map((a) => a.address),
        }),
    );
    // Not cached: a first attempt carries its event, and a retry reads it, so an event purged by
    // delete merchant is never sent again from memory.
    const events = new MongoEventStore(eventsModel);
    const deliveries = new MongoDeliveryStore(models.deliveries, models.due);
    // Deliveries stored before the due-work collection existed (or by an older replica) are sent too.
    const migrated = await ensureDueEntries(models);
    if (migrated) log.info({ migrated }, 'unfinished webhook deliveries queued in webhook_due');
    const deliveryKeys = new RepositoryDeliveryKeys(repo, box);
    const keyChanges = onApiKeyChanges(nats, () => deliveryKeys.keysChanged());
    const sender = new HttpWebhookSender();
    const worker = new DeliveryWorker(
      {
        deliveries,
        events,
        keys: deliveryKeys,
        sender,
        metrics: deliveryMetricsPort(counters),
        onError: (err) => log.warn({ err }, 'webhook delivery worker error; retrying'),
      },
      {
        ...SPEC_POLICY,
        concurrency: config.WEBHOOKS_CONCURRENCY,
        perKeyConcurrency: config.WEBHOOKS_PER_ENDPOINT_CONCURRENCY,
        perMerchantConcurrency: config.WEBHOOKS_PER_MERCHANT_CONCURRENCY,
        maxWaiting: config.WEBHOOKS_EVENTS_IN_FLIGHT,
        leaseMs: config.WEBHOOKS_LEASE_MS,
        pollIntervalMs: config.WEBHOOKS_POLL_INTERVAL_MS,
        allowPrivateTargets,
        claimGapMs: 10,
      },
    );
    const fanOut = new EventFanOut(
      {
        events,
        deliveries,
        keys: deliveryKeys,
        dispatch: worker,
      },
      () => worker.wake(),
    );
    const eventLog = new EventLog(
      { events, deliveries, keys: deliveryKeys, sender, fanOut },
      { allowPrivateTargets, timeoutMs: SPEC_POLICY.timeoutMs },
      () => worker.wake(),
    );
    worker.start();
    // Checked once per webhook event: a "not deleted" answer is kept for a second (see MerchantTombstones).
    const tombstones = new MerchantTombstones(mongo, undefined, 1_000);
    return {
      handlers: {
        ...apiKeyHandlers(keys),
        ...eventHandlers(eventLog, new EventStream({ events, keys: deliveryKeys })),
      },
      relays: [relay],
      consumers: [...webhookConsumers(fanOut, eventCounters, tombstones, config.WEBHOOKS_EVENTS_IN_FLIGHT)],
      merchantData: {
        targets: MERCHANT_DATA,
        tombstones,
        beforePurge: (scope) => beforeWebhooksPurge(mongo, nats, scope),
      },
      jobs: [
        {
          name: 'webhook pending gauge',
          intervalMs: 5_000,
          run: async () => void counters.pending.set(await deliveries.pendingCount()),
        },
        // FerretDB has no TTL indexes: the 30-day retention is a batch delete.
        {
          name: 'webhook retention',
          intervalMs: config.WEBHOOKS_RETENTION_INTERVAL_MS,
          run: () => eventLog.purgeExpired(),
        },
      ],
      onShutdown: async () => {
        keyChanges.stop();
        await worker.stop();
        destroyAgents();
      },
    };
  },
});
