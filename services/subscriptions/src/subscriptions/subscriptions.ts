import {
  isSubscriptionFrequency,
  money,
  normaliseCurrency,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  SUBSCRIPTION_FREQUENCIES,
  type Mode,
  type OutboxEntry,
  type SubscriptionCheckoutCompleted,
  type SubscriptionCheckoutCreated,
} from '@ppay/kernel';
import { period, trialEnd } from './calendar';
import { activate, cancel, newSubscription, pause, resume, startTrial } from './lifecycle';
import { parseListQuery, type ListQueryInput } from './list-query';
import type { PaymentsPort, SubscriptionRepository } from './ports';
import { clockOf, subscriptionEvent, type SubscriptionRecord } from './subscription';

export function subscriptionNotFound(): PlatformError {
  return new PlatformError('SUBSCRIPTION_NOT_FOUND', undefined, { param: 'subscription_id' });
}

/** The event for a status change, on the subscription's own clock. */
export function eventFor(
  subject: (typeof SUBJECTS)[keyof typeof SUBJECTS] & `subscriptions.${string}`,
  rec: SubscriptionRecord,
  effectiveAt: Date,
  chargeId: string | null = null,
): OutboxEntry {
  return outboxEvent(subject, subscriptionEvent(rec, { effectiveAt, chargeId }), {
    merchantId: rec.merchant_id,
    mode: rec.mode,
  });
}

export interface SandboxSubscriptionRequest {
  amount?: number;
  currency?: string;
  product_id?: number;
  product_name?: string;
  customer?: { email?: string; first_name?: string; last_name?: string };
  subscription_frequency_key?: string;
  card_number?: string;
  trial_days?: number;
}

const MAX_WRITE_RETRIES = 5;

/**
 * Subscription use cases other than renewals (scheduler.ts): created from checkout events, read, listed,
 * cancelled, paused and resumed by the merchant, created by the sandbox helper.
 */
export class SubscriptionService {
  constructor(
    private readonly deps: { subscriptions: SubscriptionRepository; payments: PaymentsPort },
    private readonly realNow: () => Date = () => new Date(),
  ) {}

  /** payments.subscription_checkout.created → a pending subscription (idempotent by session). */
  async checkoutCreated(mode: Mode, c: SubscriptionCheckoutCreated): Promise<SubscriptionRecord> {
    const { subscription } = await this.deps.subscriptions.insertOrGetBySession(this.pendingFrom(mode, c), []);
    return subscription;
  }

  /**
   * payments.subscription_checkout.completed → active: the first period is paid from the completion time
   * (or a trial starts), with the saved payment method. Idempotent: a subscription that is no longer
   * pending has already been through this.
   */
  async checkoutCompleted(mode: Mode, c: SubscriptionCheckoutCompleted): Promise<SubscriptionRecord> {
    for (let i = 0; i < MAX_WRITE_RETRIES; i++) {
      const { subscription: current } = await this.deps.subscriptions.insertOrGetBySession(
        this.pendingFrom(mode, c),
        [],
      );
      if (current.status !== 'pending') return current;
      const at = new Date(c.completed_at);
      const withMethod = { ...current, payment_method_id: c.payment_method_id, card: c.card };
      const next =
        c.trial_days !== null && c.charge_id === null
          ? startTrial(withMethod, { now: at, trialDays: c.trial_days })
          : activate(withMethod, { paidAt: at, periodStart: at, periodEnd: period(at, current.frequency, 0).end });
      const saved = await this.deps.subscriptions.save(next, [eventFor(SUBJECTS.subscriptionCreated, next, at)]);
      if (saved) return saved;
    }
    throw new PlatformError('CONFLICT', 'The subscription changed while its checkout was being recorded');
  }

  async get(merchantId: number, mode: Mode, id: string): Promise<SubscriptionRecord> {
    const rec = await this.deps.subscriptions.findForMerchant(merchantId, mode, id);
    if (!rec) throw subscriptionNotFound();
    return rec;
  }

  async list(merchantId: number, mode: Mode, raw: ListQueryInput) {
    const { query, sortSpec } = parseListQuery(raw);
    const { items, total } = await this.deps.subscriptions.list(merchantId, mode, query, sortSpec);
    return { subscriptions: items, total, limit: query.limit, offset: query.offset };
  }

  /**
   * Spec 4.6 and the cases it leaves open (lifecycle.ts cancel): a second cancel answers the cancelled
   * subscription with its original cancelled_at.
   */
  async cancel(merchantId: number, mode: Mode, id: string, atPeriodEnd: boolean): Promise<SubscriptionRecord> {
    return this.change(merchantId, mode, id, (rec, now) => {
      const result = cancel(rec, { now, atPeriodEnd });
      if (!result.changed) return null;
      // A period-end cancellation announces itself when it takes effect (the scheduler's periodEnded).
      const events =
        result.state.status === 'cancelled' ? [eventFor(SUBJECTS.subscriptionCancelled, result.state, now)] : [];
      return { next: result.state, events };
    });
  }

  async pause(merchantId: number, mode: Mode, id: string): Promise<SubscriptionRecord> {
    return this.change(merchantId, mode, id, (rec, now) => {
      const next = pause(rec, now);
      return { next, events: [eventFor(SUBJECTS.subscriptionPaused, next, now)] };
    });
  }

  async resume(merchantId: number, mode: Mode, id: string): Promise<SubscriptionRecord> {
    return this.change(merchantId, mode, id, (rec, now) => {
      const next = resume(rec, now);
      const subject = next.status === 'cancelled' ? SUBJECTS.subscriptionCancelled : SUBJECTS.subscriptionResumed;
      return { next, events: [eventFor(subject, next, now)] };
    });
  }

  /**
   * Sandbox helper: a subscription paid (or trialled) with a test card, without the hosted page. The
   * first payment is charged through payments like any other (payment.succeeded, wallet credit).
   */
  async createSandbox(merchantId: number, mode: Mode, r: SandboxSubscriptionRequest): Promise<SubscriptionRecord> {
    if (mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
    const input = validateSandboxRequest(r);
    const method = await this.deps.payments.saveTestCard(merchantId, mode, input.cardNumber, input.email);
    const now = this.realNow();
    const id = prefixedId('sub');
    let rec: SubscriptionRecord = {
      ...newSubscription(input.frequency),
      id,
      merchant_id: merchantId,
      mode,
      product: { id: input.productId, title: input.productName, type: 'subscription' },
      customer: { email: input.email, first_name: input.firstName, last_name: input.lastName, country: 'Unknown' },
      amount: money(input.amount, input.currency),
      metadata: {},
      checkout_session_id: null,
      payment_method_id: method.payment_method_id,
      card: { brand: method.brand, last4: method.last4 },
      trial_days: input.trialDays,
      clock_offset_ms: 0,
      version: 0,
      created_at: now,
      updated_at: now,
    };
    if (input.trialDays !== null) {
      rec = startTrial(rec, { now, trialDays: input.trialDays });
    } else {
      const first = period(now, rec.frequency, 0);
      const outcome = await this.deps.payments.chargeSaved(merchantId, mode, {
        payment_method_id: method.payment_method_id,
        price: rec.amount,
        idempotency_key: `sub:${id}:${first.start.toISOString()}:1`,
        product: rec.product,
        frequency: rec.frequency,
        metadata: { subscription_id: id },
        customer: rec.customer,
        customer_present: true,
      });
      if (outcome.status !== 'succeeded') {
        throw new PlatformError('VALIDATION_FAILED', `The first payment was declined (${outcome.decline_code})`, {
          param: 'card_number',
        });
      }
      rec = activate(rec, { paidAt: now, periodStart: first.start, periodEnd: first.end });
    }
    const { subscription } = await this.deps.subscriptions.insertOrGetBySession(rec, [
      eventFor(SUBJECTS.subscriptionCreated, rec, now),
    ]);
    return subscription;
  }

  /** Read, decide on the subscription's clock, write conditionally; retried when another write won. */
  private async change(
    merchantId: number,
    mode: Mode,
    id: string,
    decide: (rec: SubscriptionRecord, now: Date) => { next: SubscriptionRecord; events: OutboxEntry[] } | null,
  ): Promise<SubscriptionRecord> {
    for (let i = 0; i < MAX_WRITE_RETRIES; i++) {
      const rec = await this.get(merchantId, mode, id);
      const decided = decide(rec, clockOf(rec, this.realNow()));
      if (!decided) return rec;
      const saved = await this.deps.subscriptions.save(decided.next, decided.events);
      if (saved) return saved;
    }
    throw new PlatformError('CONFLICT', undefined, { param: 'subscription_id' });
  }

  private pendingFrom(mode: Mode, c: SubscriptionCheckoutCreated): SubscriptionRecord {
    const now = this.realNow();
    return {
      ...newSubscription(c.frequency),
      id: prefixedId('sub'),
      merchant_id: c.merchant_id,
      mode,
      product: c.product,
      customer: c.customer,
      amount: c.price,
      metadata: c.metadata,
      checkout_session_id: c.session_id,
      payment_method_id: null,
      card: null,
      trial_days: c.trial_days,
      clock_offset_ms: 0,
      version: 0,
      created_at: new Date(c.created_at),
      updated_at: now,
    };
  }
}

const MAX_NAME = 200;
const MAX_EMAIL = 254;

function validateSandboxRequest(r: SandboxSubscriptionRequest) {
  const invalid = (param: string, message: string) => new PlatformError('VALIDATION_FAILED', message, { param });
  const currency = normaliseCurrency(r.currency ?? '');
  if (!currency) throw invalid('currency', 'currency must be a supported ISO 4217 code');
  if (!Number.isSafeInteger(r.amount) || (r.amount ?? 0) < 1) {
    throw invalid('amount', 'amount must be a positive integer in the smallest unit of currency');
  }
  const frequency = r.subscription_frequency_key ?? '';
  if (!isSubscriptionFrequency(frequency)) {
    throw invalid(
      'subscription_frequency_key',
      `subscription_frequency_key must be one of ${SUBSCRIPTION_FREQUENCIES.join(', ')}`,
    );
  }
  const email = r.customer?.email?.trim() ?? '';
  if (!email || email.length > MAX_EMAIL || !email.includes('@')) {
    throw invalid('customer.email', 'customer.email is required');
  }
  const productName = (r.product_name ?? '').trim().slice(0, MAX_NAME);
  const productId = r.product_id && r.product_id > 0 ? r.product_id : null;
  const trialDays = r.trial_days ? r.trial_days : null;
  if (trialDays !== null) trialEnd(new Date(0), trialDays); // validates 1–730 (VALIDATION_FAILED, param trial_days)
  return {
    currency,
    amount: r.amount as number,
    frequency,
    email,
    firstName: r.customer?.first_name?.trim() ?? '',
    lastName: r.customer?.last_name?.trim() ?? '',
    productId,
    productName: productName || (productId ? `Product ${productId}` : 'Subscription'),
    cardNumber: r.card_number ?? '',
    trialDays,
  };
}
