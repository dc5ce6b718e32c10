import {
  PlatformError,
  prefixedId,
  SUBJECTS,
  type Mode,
  type SubscriptionCheckoutCompleted,
  type SubscriptionCheckoutCreated,
} from '@ppay/kernel';
import { period } from '../renewals/calendar';
import { activate, startTrial } from '../subscriptions/lifecycle';
import type { SubscriptionRepository } from '../subscriptions/ports';
import { eventFor, newSubscriptionRecord, type SubscriptionRecord } from '../subscriptions/subscription';

const MAX_WRITE_RETRIES = 5;

/**
 * payments' hosted subscription checkouts → subscriptions: a pending one when the checkout is created,
 * active (or trialling) with the saved payment method when it completes. Idempotent by checkout session.
 */
export class CheckoutService {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly realNow: () => Date = () => new Date(),
  ) {}

  /** payments.subscription_checkout.created → a pending subscription (idempotent by session). */
  async checkoutCreated(mode: Mode, c: SubscriptionCheckoutCreated): Promise<SubscriptionRecord> {
    const { subscription } = await this.subscriptions.insertOrGetBySession(this.pendingFrom(mode, c), []);
    return subscription;
  }

  /**
   * payments.subscription_checkout.completed → active: the first period is paid from the completion time
   * (or a trial starts), with the saved payment method. Idempotent: a subscription that is no longer
   * pending has already been through this.
   */
  async checkoutCompleted(mode: Mode, c: SubscriptionCheckoutCompleted): Promise<SubscriptionRecord> {
    for (let i = 0; i < MAX_WRITE_RETRIES; i++) {
      const { subscription: current } = await this.subscriptions.insertOrGetBySession(this.pendingFrom(mode, c), []);
      if (current.status !== 'pending') return current;
      const at = new Date(c.completed_at);
      const withMethod = { ...current, payment_method_id: c.payment_method_id, card: c.card };
      const next =
        c.trial_days !== null && c.charge_id === null
          ? startTrial(withMethod, { now: at, trialDays: c.trial_days })
          : activate(withMethod, { paidAt: at, periodStart: at, periodEnd: period(at, current.frequency, 0).end });
      const saved = await this.subscriptions.save(next, [eventFor(SUBJECTS.subscriptionCreated, next, at)]);
      if (saved) return saved;
    }
    throw new PlatformError('CONFLICT', 'The subscription changed while its checkout was being recorded');
  }

  private pendingFrom(mode: Mode, c: SubscriptionCheckoutCreated): SubscriptionRecord {
    return newSubscriptionRecord({
      id: prefixedId('sub'),
      merchant_id: c.merchant_id,
      mode,
      frequency: c.frequency,
      product: c.product,
      customer: c.customer,
      amount: c.price,
      metadata: c.metadata,
      checkout_session_id: c.session_id,
      payment_method_id: null,
      card: null,
      trial_days: c.trial_days,
      created_at: new Date(c.created_at),
      updated_at: this.realNow(),
    });
  }
}
