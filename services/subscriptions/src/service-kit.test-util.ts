import type { SubscriptionCheckoutCompleted } from '@ppay/kernel';
import { CheckoutService } from './checkouts/checkouts';
import { FakePayments } from './fake-payments.test-util';
import { LeasedScheduler, type SchedulerOptions } from './renewals/leased-scheduler';
import { MemoryRenewals } from './renewals/memory-renewals.test-util';
import { SubscriptionRenewals } from './renewals/renewals';
import { SandboxClock, SUBSCRIPTION_CLOCK } from './renewals/sandbox-clock';
import { MemorySubscriptions } from './subscriptions/memory-subscriptions.test-util';
import { SubscriptionService } from './subscriptions/subscriptions';

/** The whole service over in-memory ports and a real time the test moves (`tick`), as main.ts wires it. */

export const DAY = 86_400_000;
export const T0 = '2026-01-31T10:00:00.000Z';

export function setup(options: Partial<SchedulerOptions> = {}) {
  const subscriptions = new MemorySubscriptions();
  const renewals = new MemoryRenewals();
  const payments = new FakePayments();
  let real = Date.parse(T0);
  const realNow = () => new Date(real);
  const service = new SubscriptionService({ subscriptions, payments }, realNow);
  const checkouts = new CheckoutService(subscriptions, realNow);
  const work = new SubscriptionRenewals({ subscriptions, renewals, payments }, realNow);
  const scheduler = (owner = 'a') =>
    new LeasedScheduler(
      subscriptions,
      work,
      { owner, leaseMs: 30_000, concurrency: 2, retryAfterErrorMs: 5_000, batchSize: 50, ...options },
      realNow,
    );
  const clock = (owner = 'a') => new SandboxClock(subscriptions, scheduler(owner), SUBSCRIPTION_CLOCK, realNow);
  return {
    subscriptions,
    renewals,
    payments,
    service,
    checkouts,
    scheduler,
    clock,
    tick: (ms: number) => (real += ms),
    realNow,
  };
}

/** payments.subscription_checkout.completed of a monthly NGN subscription paid at T0. */
export const checkout = (overrides: Partial<SubscriptionCheckoutCompleted> = {}): SubscriptionCheckoutCompleted => ({
  session_id: 'cs_1',
  merchant_id: 7,
  product: { id: 3, title: 'Bread club', type: 'subscription' },
  price: { amount: 500_000, currency: 'NGN' },
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'L', country: 'NG' },
  frequency: 'monthly',
  trial_days: null,
  metadata: {},
  created_at: '2026-01-31T09:59:00.000Z',
  expires_at: '2026-01-31T10:29:00.000Z',
  payment_method_id: 'pm_1',
  card: { brand: 'visa', last4: '4242' },
  charge_id: 'ch_first',
  transaction_id: 'txn_first',
  completed_at: T0,
  ...overrides,
});

/** The subjects of the events written so far, without the `subscriptions.subscription.` prefix. */
export const subjects = (s: MemorySubscriptions) =>
  s.events.map((e) => e.subject.replace('subscriptions.subscription.', ''));

/** A rejection as `CODE:param`, or undefined when the promise resolved. */
export const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: { code: string; param?: string }) => `${e.code}:${e.param ?? ''}`,
  );
