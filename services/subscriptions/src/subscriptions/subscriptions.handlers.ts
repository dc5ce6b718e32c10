import { requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { SandboxClock } from '../renewals/sandbox-clock';
import { subscriptionResource, type SubscriptionRecord } from './subscription';
import type { SubscriptionService } from './subscriptions';

type Handlers = UnaryHandlers<types.subscriptions.SubscriptionsServiceHandlers>;

/** Decode, call the use case, encode: the REST shape is subscriptionResource (subscription.ts). */
export function serviceHandlers(
  subscriptions: SubscriptionService,
  clock: SandboxClock<SubscriptionRecord>,
  /** Publishes a subscription's pending outbox events now (the sandbox clock answers after its events are out). */
  flushEvents: (id: string) => Promise<void> = async () => undefined,
  realNow: () => Date = () => new Date(),
): Handlers {
  const resource = (rec: SubscriptionRecord) => toWire(subscriptionResource(rec, realNow()));
  return {
    async ListSubscriptions(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const page = await subscriptions.list(merchantId, requireMode(caller), {
        status: req.status,
        // proto3 zero values are "absent" (the gateway always sends limit, offset, sort_by and sort_order).
        product_id: req.product_id || undefined,
        limit: req.limit || undefined,
        offset: req.offset,
        sort_by: req.sort_by,
        sort_order: req.sort_order,
      });
      return { ...page, subscriptions: page.subscriptions.map(resource) };
    },
    async GetSubscription(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return resource(await subscriptions.get(merchantId, requireMode(caller), req.subscription_id));
    },
    async CancelSubscription(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const rec = await subscriptions.cancel(merchantId, requireMode(caller), req.subscription_id, req.at_period_end);
      return toWire({
        id: rec.id,
        status: rec.status,
        cancelled_at: rec.cancelled_at,
        cancel_at_period_end: rec.cancel_at_period_end,
        cancel_at: rec.cancel_at,
      });
    },
    async PauseSubscription(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return resource(await subscriptions.pause(merchantId, requireMode(caller), req.subscription_id));
    },
    async ResumeSubscription(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return resource(await subscriptions.resume(merchantId, requireMode(caller), req.subscription_id));
    },
    async AdvanceSandboxClock(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const rec = await clock.advance(merchantId, requireMode(caller), req.subscription_id, req.to, deadline);
      await flushEvents(rec.id);
      return resource(rec);
    },
    async CreateSandboxSubscription(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const rec = await subscriptions.createSandbox(merchantId, requireMode(caller), {
        amount: req.amount ? { amount: Number(req.amount.amount), currency: req.amount.currency } : undefined,
        product_id: Number(req.product_id) || undefined,
        product_name: req.product_name,
        customer: req.customer ?? undefined,
        subscription_frequency_key: req.subscription_frequency_key,
        card_number: req.card_number,
        trial_days: req.trial_days || undefined,
      });
      return resource(rec);
    },
  };
}
