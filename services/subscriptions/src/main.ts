import './instrument';
import { hostname } from 'node:os';
import { prefixedId } from '@ppay/kernel';
import { ensureIndexes, MerchantTombstones, OutboxRelay, runService } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { checkoutConsumer } from './checkouts/checkout.consumer';
import { CheckoutService } from './checkouts/checkouts';
import { serviceConfig } from './config';
import { InstallmentCharges } from './installment-plans/installment-charges';
import { installmentCheckoutConsumer } from './installment-plans/installment-checkout.consumer';
import { PLAN_CLOCK } from './installment-plans/installment-plan';
import { installmentPlanModel, MongoInstallmentPlanRepository } from './installment-plans/installment-plan.repo';
import { installmentPlanHandlers } from './installment-plans/installment-plans.handlers';
import { InstallmentPlanService } from './installment-plans/installment-plans';
import { installmentMetrics } from './installment-plans/installment-plans.metrics';
import { InstallmentCheckouts } from './installment-plans/plan-checkouts';
import { MERCHANT_DATA } from './merchant-data.repo';
import { GrpcPayments } from './payments-client.adapter';
import { LeasedScheduler } from './renewals/leased-scheduler';
import { MongoRenewalRepository, renewalModel } from './renewals/renewal.repo';
import { SubscriptionRenewals } from './renewals/renewals';
import { renewalMetrics } from './renewals/renewals.metrics';
import { SandboxClock, SUBSCRIPTION_CLOCK } from './renewals/sandbox-clock';
import { MongoSubscriptionRepository, subscriptionModel } from './subscriptions/subscription.repo';
import { SubscriptionService } from './subscriptions/subscriptions';
import { serviceHandlers } from './subscriptions/subscriptions.handlers';

void runService<types.subscriptions.SubscriptionsServiceHandlers, (typeof serviceConfig)['properties']>({
  name: 'subscriptions',
  extraConfig: serviceConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const subscriptionDocs = subscriptionModel(mongo);
    const renewalDocs = renewalModel(mongo);
    const planDocs = installmentPlanModel(mongo);
    await ensureIndexes([subscriptionDocs, renewalDocs, planDocs]);
    const relay = new OutboxRelay(subscriptionDocs, nats, log, metrics);
    const planRelay = new OutboxRelay(planDocs, nats, log, metrics);
    const repo = new MongoSubscriptionRepository(subscriptionDocs, (id) => relay.relaySoon(id));
    const payments = new GrpcPayments(config.PAYMENTS_GRPC_ADDR, metrics);
    const observer = renewalMetrics(metrics.registry, log);
    const renewals = new SubscriptionRenewals(
      { subscriptions: repo, renewals: new MongoRenewalRepository(renewalDocs), payments },
      () => new Date(),
      observer,
    );
    const schedulerOptions = {
      // Unique per process: a restarted process must not inherit its predecessor's leases.
      owner: `${hostname()}:${process.pid}:${prefixedId('sch', 8)}`,
      leaseMs: config.SCHEDULER_LEASE_MS,
      concurrency: config.SCHEDULER_CONCURRENCY,
      retryAfterErrorMs: Math.min(30_000, config.SCHEDULER_LEASE_MS),
      batchSize: 500,
    };
    const scheduler = new LeasedScheduler(repo, renewals, schedulerOptions, () => new Date(), observer);
    // Installment plans: their later parts on the same leased scheduler, calendar and dunning as renewals.
    const plans = new MongoInstallmentPlanRepository(planDocs, (id) => planRelay.relaySoon(id));
    const planObserver = installmentMetrics(metrics.registry, log);
    const planScheduler = new LeasedScheduler(
      plans,
      new InstallmentCharges({ plans, payments }, () => new Date(), planObserver),
      schedulerOptions,
      () => new Date(),
      planObserver,
    );
    const tombstones = new MerchantTombstones(mongo);
    return {
      handlers: {
        ...serviceHandlers(
          new SubscriptionService({ subscriptions: repo, payments }),
          new SandboxClock(repo, scheduler, SUBSCRIPTION_CLOCK),
          (id) => relay.relayDocument(id),
        ),
        ...installmentPlanHandlers(
          new InstallmentPlanService(plans),
          new SandboxClock(plans, planScheduler, PLAN_CLOCK),
          (id) => planRelay.relayDocument(id),
        ),
      },
      consumers: [
        checkoutConsumer(new CheckoutService(repo), tombstones),
        installmentCheckoutConsumer(new InstallmentCheckouts(plans), tombstones),
      ],
      merchantData: { targets: MERCHANT_DATA, tombstones },
      relays: [relay, planRelay],
      // Replicas may all run it: leases keep each subscription to one of them (docs/architecture.md).
      jobs: [
        ...(config.SCHEDULER_ENABLED
          ? [
              { name: 'renewal pass', intervalMs: config.SCHEDULER_INTERVAL_MS, run: () => scheduler.drain() },
              { name: 'installment pass', intervalMs: config.SCHEDULER_INTERVAL_MS, run: () => planScheduler.drain() },
            ]
          : []),
      ],
      onShutdown: async () => {
        payments.close();
      },
    };
  },
});
