import { money, normaliseCurrency, PlatformError, prefixedId, SUBJECTS } from '@ppay/kernel';
import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { PaymentsPort } from '../ports';
import { period } from '../renewals/calendar';
import { renewalKey } from '../renewals/renewal';
import { activate, cancel, pause, resume, startTrial } from './lifecycle';
import { parseListQuery, type ListQueryInput } from './list-query';
import { parseFrequency, trialEnd } from './plan';
import type { SubscriptionRepository } from './ports';
import {
  clockOf,
  eventFor,
  newSubscriptionRecord,
  requireSandbox,
  subscriptionNotFound,
  type SubscriptionRecord,
} from './subscription';

export interface SandboxSubscriptionRequest {
  /** The recurring price as sent; validated here (the currency, then the amount). */
  amount?: { amount?: number; currency?: string };
  product_id?: number;
  product_name?: string;
  customer?: { email?: string; first_name?: string; last_name?: string };
  subscription_frequency_key?: string;
  card_number?: string;
  trial_days?: number;
}

const MAX_WRITE_RETRIES = 5;

/**
 * The merchant's subscription use cases: read, listed, cancelled, paused and resumed, and created by the
 * sandbox helper. Checkouts create the others (checkouts/), renewals charge them (renewals/).
 */
export class SubscriptionService {
  constructor(
    private readonly deps: { subscriptions: SubscriptionRepository; payments: PaymentsPort },
    private readonly realNow: () => Date = () => new Date(),
  ) {}

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
    requireSandbox(mode);
    const input = validateSandboxRequest(r);
    const method = await this.deps.payments.saveTestCard(merchantId, mode, input.cardNumber, input.email);
    const now = this.realNow();
    const id = prefixedId('sub');
    let rec = newSubscriptionRecord({
      id,
      merchant_id: merchantId,
      mode,
      frequency: input.frequency,
      product: { id: input.productId, title: input.productName, type: 'subscription' },
      customer: { email: input.email, first_name: input.firstName, last_name: input.lastName, country: 'Unknown' },
      amount: input.price,
      metadata: {},
      checkout_session_id: null,
      payment_method_id: method.payment_method_id,
      card: { brand: method.brand, last4: method.last4 },
      trial_days: input.trialDays,
      created_at: now,
      updated_at: now,
    });
    if (input.trialDays !== null) {
      rec = startTrial(rec, { now, trialDays: input.trialDays });
    } else {
      const first = period(now, rec.frequency, 0);
      const outcome = await this.deps.payments.chargeSaved(merchantId, mode, {
        payment_method_id: method.payment_method_id,
        price: rec.amount,
        idempotency_key: renewalKey(id, first.start, 1),
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
}

const MAX_NAME = 200;
const MAX_EMAIL = 254;

function validateSandboxRequest(r: SandboxSubscriptionRequest) {
  const invalid = (param: string, message: string) => new PlatformError('VALIDATION_FAILED', message, { param });
  const currency = normaliseCurrency(r.amount?.currency ?? '');
  if (!currency) throw invalid('currency', 'currency must be a supported ISO 4217 code');
  const amount = r.amount?.amount;
  if (amount === undefined || !Number.isSafeInteger(amount) || amount < 1) {
    throw invalid('amount', 'amount must be a positive integer in the smallest unit of currency');
  }
  const frequency = parseFrequency(r.subscription_frequency_key ?? '');
  const email = r.customer?.email?.trim() ?? '';
  if (!email || email.length > MAX_EMAIL || !email.includes('@')) {
    throw invalid('customer.email', 'customer.email is required');
  }
  const productName = (r.product_name ?? '').trim().slice(0, MAX_NAME);
  const productId = r.product_id && r.product_id > 0 ? r.product_id : null;
  const trialDays = r.trial_days ? r.trial_days : null;
  if (trialDays !== null) trialEnd(new Date(0), trialDays); // validates 1–730 (VALIDATION_FAILED, param trial_days)
  return {
    price: money(amount, currency),
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
