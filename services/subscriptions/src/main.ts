import './instrument';
import { hostname } from 'node:os';
import { prefixedId } from '@ppay/kernel';
import {
  ensureIndexes,
  merchantDeletionConsumer,
  tombstoneSweepJob,
  MerchantTombstones,
  OutboxRelay,
  runService,
} from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { GrpcPayments } from './adapters/payments-client';
import { serviceConfig } from './config';
import { RenewalScheduler } from './domain/scheduler';
import { SubscriptionService } from './domain/subscriptions';
import { checkoutConsumer } from './events/checkout-consumer';
import { schedulerMetrics } from './events/metrics';
import { serviceHandlers } from './grpc/handlers';
import { MERCHANT_DATA } from './repo/merchant-data';
import { MongoRenewalRepository, renewalModel } from './repo/renewal-repo';
import { MongoSubscriptionRepository, subscriptionModel } from './repo/subscription-repo';

void runService<types.subscriptions.SubscriptionsServiceHandlers, (typeof serviceConfig)['properties']>({
  name: 'subscriptions',
  extraConfig: serviceConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const subscriptionDocs = subscriptionModel(mongo);
    const renewalDocs = renewalModel(mongo);
    await ensureIndexes([subscriptionDocs, renewalDocs]);
    const relay = new OutboxRelay(subscriptionDocs, nats, log, metrics);
    const repo = new MongoSubscriptionRepository(subscriptionDocs, (id) => relay.relaySoon(id));
    const payments = new GrpcPayments(config.PAYMENTS_GRPC_ADDR, metrics);
    const subscriptions = new SubscriptionService({ subscriptions: repo, payments });
    const scheduler = new RenewalScheduler(
      { subscriptions: repo, renewals: new MongoRenewalRepository(renewalDocs), payments },
      {
        // Unique per process: a restarted process must not inherit its predecessor's leases.
        owner: `${hostname()}:${process.pid}:${prefixedId('sch', 8)}`,
        leaseMs: config.SCHEDULER_LEASE_MS,
        concurrency: config.SCHEDULER_CONCURRENCY,
        retryAfterErrorMs: Math.min(30_000, config.SCHEDULER_LEASE_MS),
        batchSize: 500,
      },
      () => new Date(),
      schedulerMetrics(metrics.registry, log),
    );
    const tombstones = new MerchantTombstones(mongo);
    return {
      handlers: serviceHandlers(subscriptions, scheduler, (id) => relay.relayDocument(id)),
      consumers: [
        checkoutConsumer(subscriptions, tombstones),
        merchantDeletionConsumer({
          service: 'subscriptions',
          conn: mongo,
          nats,
          targets: MERCHANT_DATA,
          tombstones,
          log,
        }),
      ],
      relays: [relay],
      // Replicas may all run it: leases keep each subscription to one of them (docs/architecture.md).
      jobs: [
        tombstoneSweepJob(mongo, MERCHANT_DATA),
        ...(config.SCHEDULER_ENABLED
          ? [{ name: 'renewal pass', intervalMs: config.SCHEDULER_INTERVAL_MS, run: () => scheduler.drain() }]
          : []),
      ],
      onShutdown: async () => {
        payments.close();
      },
    };
  },
});
