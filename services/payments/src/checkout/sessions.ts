import {
  isSubscriptionFrequency,
  money,
  normaliseCountry,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  SUBSCRIPTION_FREQUENCIES,
  TRIAL_DAYS_MAX,
  TRIAL_DAYS_MIN,
  type Mode,
  type OutboxEntry,
  type SubscriptionCheckoutCreated,
} from '@ppay/kernel';
import { validateCard, type CardInput, type CardResult, type TestCard } from '../processors/cards';
import { newCharge, UNKNOWN_COUNTRY, type ChargeRecord } from '../charges/charge';
import { assertChargeable, feeBreakdown, type FeeSchedule } from '../charges/fees';
import { sessionOutcome } from '../charges/outcomes';
import { requirePaymentBasics, requirePositiveAmount, type PaymentRequestBasics } from '../charges/payment-request';
import type {
  CheckoutProcessor,
  MerchantDirectory,
  ProcessorRegistry,
  ProductLookup,
  SessionRepository,
} from '../ports';
import { processorGroupFor } from '../processors/processors';
import { checkRedirectUrl } from './redirects';
import { checkoutView, effectiveStatus, type SessionRecord } from './session';

import type { PaymentMethodService } from '../payment-methods/payment-methods';

export interface SessionRequest extends PaymentRequestBasics {
  product_id?: number;
  product_name?: string;
  success_url?: string;
  cancel_url?: string;
  subscription_frequency_key?: string;
  /** Beyond the spec: a free trial on a subscription session (the card is saved, nothing is charged). */
  trial_days?: number;
  idempotency_key?: string;
}

export interface SessionServiceOptions {
  feeSchedule: FeeSchedule;
  ttlMs: number;
  /** Declined attempts after which the session fails (card-testing guard). */
  maxAttempts: number;
  /** An attempt claimed longer ago than this is considered abandoned (crashed process). */
  attemptStaleMs: number;
}

export type PayResult =
  | { result: 'succeeded'; session: SessionRecord }
  | { result: 'declined'; session: SessionRecord; decline_code: string; message: string };

const MAX_PRODUCT_NAME = 200;
const MAX_EMAIL = 254;
// Checked after the length bound; one non-repeating split, no nested quantifiers (no backtracking).
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A plausible e-mail address: bounded, one @, a dot in the domain, no spaces. */
export function isEmailAddress(value: string): boolean {
  if (value.length > MAX_EMAIL || !EMAIL.test(value)) return false;
  const domain = value.slice(value.indexOf('@') + 1);
  return domain.includes('.') && !domain.startsWith('.') && !domain.endsWith('.');
}

export class SessionService {
  constructor(
    private readonly deps: {
      merchants: MerchantDirectory;
      processors: ProcessorRegistry;
      products: ProductLookup;
      sessions: SessionRepository;
      processor: CheckoutProcessor;
      /** Saves the card of a paid subscription session for its renewals. */
      paymentMethods: Pick<PaymentMethodService, 'saveFromCheckout'>;
    },
    private readonly options: SessionServiceOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(
    merchantId: number,
    mode: Mode,
    r: SessionRequest,
  ): Promise<{ session: SessionRecord; replayed: boolean }> {
    const input = this.validate(r);
    const merchant = await this.deps.merchants.get(merchantId);
    const group = processorGroupFor(input.currency);
    // Live sessions need a live processor, exactly as live charges do (GATEWAY_NOT_CONFIGURED otherwise).
    const adapter = this.deps.processors.adapterFor(group, mode);
    let product = { id: null as number | null, name: input.productName, type: 'custom' };
    if (input.productId !== undefined) {
      const found = await this.deps.products.product(merchantId, mode, input.productId, input.currency);
      product = { id: input.productId, name: input.productName || found.name, type: found.type };
    }
    const fee = feeBreakdown(
      this.options.feeSchedule,
      group,
      money(input.amount, input.currency),
      merchant.customer_pays_fees,
    );
    const now = this.now();
    const id = prefixedId('cs', 32); // 32 base62 ≈ 190 bits: the id is the checkout page's capability
    const authorization = await adapter.initialise({
      charge_id: id,
      merchant_id: merchantId,
      mode,
      amount: money(fee.total_amount, input.currency),
      customer_email: input.email,
      description: product.name,
      callback_url: input.successUrl,
    });
    const record: SessionRecord = {
      session_id: id,
      gateway_session_id: authorization.processor_reference,
      merchant_id: merchantId,
      mode,
      status: 'pending',
      amount: money(fee.total_amount, input.currency),
      processor_group: group,
      payment_gateway: adapter.id,
      product,
      customer: {
        email: input.email,
        first_name: r.customer?.first_name?.trim() ?? '',
        last_name: r.customer?.last_name?.trim() ?? '',
        country: normaliseCountry(r.customer?.country) ?? UNKNOWN_COUNTRY,
      },
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      payment_type: input.frequency ? 'subscription' : 'one_time',
      subscription_frequency_key: input.frequency ?? null,
      trial_days: input.trialDays ?? null,
      metadata: r.metadata ?? {},
      fee_details: {
        base_product_price: fee.base_amount,
        transaction_fee: fee.transaction_fee,
        total_amount: fee.total_amount,
        customer_pays_fees: fee.customer_pays_fees,
      },
      expires_at: new Date(now.getTime() + this.options.ttlMs),
      created_at: now,
      completed_at: null,
      updated_at: now,
      payment: null,
      attempts: [],
      attempt_count: 0,
      in_flight: null,
      idempotency_key: r.idempotency_key?.trim() || null,
    };
    // A subscription session tells subscriptions at once, which records a pending subscription.
    const events = record.payment_type === 'subscription' ? [subscriptionCheckoutEvent(record)] : [];
    const saved = await this.deps.sessions.insertOrGetByIdempotencyKey(record, events);
    return { session: saved.session, replayed: !saved.created };
  }

  /** A merchant sees only its own sessions, in the mode of its key; anything else is 404. */
  async get(merchantId: number, mode: Mode, sessionId: string): Promise<SessionRecord> {
    const s = await this.deps.sessions.findForMerchant(sessionId, merchantId, mode);
    if (!s) throw sessionNotFound();
    return this.withExpiry(s);
  }

  /** The hosted page's view, by session id alone. */
  async checkout(sessionId: string): Promise<SessionRecord> {
    const s = await this.deps.sessions.findById(sessionId);
    if (!s) throw sessionNotFound();
    return this.withExpiry(s);
  }

  testCards(mode: Mode): TestCard[] {
    return this.deps.processor.testCards(mode);
  }

  attemptsLeft(s: SessionRecord): number {
    return Math.max(0, this.options.maxAttempts - s.attempt_count);
  }

  /** The hosted page's view of a session; the merchant's name falls back to its id on the page. */
  async view(s: SessionRecord, lastDeclineMessage = '') {
    const merchant = await this.deps.merchants.get(s.merchant_id).catch(() => undefined);
    return checkoutView(s, {
      business_name: merchant?.business_name ?? '',
      attempts_left: this.attemptsLeft(s),
      test_cards: this.testCards(s.mode),
      last_decline_message: lastDeclineMessage,
    });
  }

  /**
   * The customer pays on the hosted page. A decline leaves the session open for another card (as
   * Stripe Checkout does) until `maxAttempts` declines, which fail it. Success completes it. Either
   * way the charge's outcome event goes into the session's outbox in the same write.
   */
  async pay(sessionId: string, cardInput: CardInput | undefined): Promise<PayResult> {
    const current = await this.checkout(sessionId);
    if (current.status === 'completed') return { result: 'succeeded', session: current };
    assertPayable(current);
    const card = validateCard(cardInput, this.now());
    if (current.mode !== 'sandbox') {
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, { detail: 'live checkout is not enabled yet' });
    }
    const attemptId = prefixedId('att');
    const started = this.now();
    const claimed = await this.deps.sessions.claimAttempt(
      sessionId,
      attemptId,
      started,
      new Date(started.getTime() - this.options.attemptStaleMs),
    );
    if (!claimed) {
      const now = await this.checkout(sessionId);
      if (now.status === 'completed') return { result: 'succeeded', session: now };
      assertPayable(now);
      throw new PlatformError('CONFLICT', 'A payment for this checkout session is already being processed', {
        param: 'session_id',
      });
    }
    const charge = this.chargeFor(claimed);
    let result: CardResult;
    try {
      result = await this.deps.processor.authorise(
        { charge_id: charge.charge_id, group: claimed.processor_group, mode: claimed.mode, amount: claimed.amount },
        card,
      );
    } catch (err) {
      await this.deps.sessions.releaseAttempt(sessionId, attemptId);
      throw err;
    }
    const at = this.now();
    const trial = result.approved && claimed.trial_days !== null;
    const target = result.approved ? 'succeeded' : 'failed';
    const finished: ChargeRecord = {
      ...charge,
      status: target,
      processor_reference: result.approved ? result.processor_reference : null,
      failure_reason: result.approved ? null : result.decline_code,
      completed_at: at,
      updated_at: at,
    };
    const scope = { merchantId: claimed.merchant_id, mode: claimed.mode };
    const events: OutboxEntry[] = [];
    // A trial charges nothing: the card is only saved (no payment event, no wallet credit).
    if (!trial) {
      const subject = result.approved ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed;
      events.push(outboxEvent(subject, sessionOutcome(claimed, finished, at), scope));
    }
    if (result.approved && claimed.payment_type === 'subscription') {
      // Saved before the session completes, so the completion event never names a method that does not exist;
      // a crash in between leaves an unused method that the next attempt on this session reuses.
      const method = await this.deps.paymentMethods.saveFromCheckout({
        session_id: claimed.session_id,
        merchant_id: claimed.merchant_id,
        mode: claimed.mode,
        customer_email: claimed.customer.email,
        card: this.deps.processor.saveCard(card),
      });
      events.push(
        outboxEvent(
          SUBJECTS.subscriptionCheckoutCompleted,
          {
            ...subscriptionCheckout(claimed),
            payment_method_id: method.payment_method_id,
            card: { brand: method.card.brand, last4: method.card.last4 },
            charge_id: trial ? null : finished.charge_id,
            transaction_id: trial ? null : finished.transaction_id,
            completed_at: at.toISOString(),
          },
          scope,
        ),
      );
    }
    const attempts = claimed.attempt_count + 1;
    const saved = await this.deps.sessions.finishAttempt(
      sessionId,
      attemptId,
      result.approved
        ? {
            status: 'completed',
            completed_at: at,
            payment: trial ? null : { ...finished, card: result.card },
            attempt: null,
            now: at,
          }
        : {
            status: attempts >= this.options.maxAttempts ? 'failed' : 'pending',
            completed_at: attempts >= this.options.maxAttempts ? at : null,
            payment: null,
            attempt: {
              charge_id: finished.charge_id,
              transaction_id: finished.transaction_id,
              status: 'failed',
              decline_code: result.decline_code,
              card: result.card,
              at,
            },
            now: at,
          },
      events,
    );
    if (!saved) {
      // Our claim was taken over as stale: nothing of this attempt was recorded.
      throw new PlatformError('CONFLICT', 'The payment attempt took too long; please try again', {
        param: 'session_id',
      });
    }
    if (result.approved) return { result: 'succeeded', session: saved };
    return { result: 'declined', session: saved, decline_code: result.decline_code, message: result.message };
  }

  /** The customer leaves: the session stays open until it expires, so "back" can still pay (Stripe's behaviour). */
  async cancel(sessionId: string): Promise<SessionRecord> {
    return this.checkout(sessionId);
  }

  /** The periodic sweeper: persists the expiry of every pending session past expires_at. */
  async sweepExpired(): Promise<number> {
    const now = this.now();
    return this.deps.sessions.expireDue(now, new Date(now.getTime() - this.options.attemptStaleMs));
  }

  private async withExpiry(s: SessionRecord): Promise<SessionRecord> {
    const now = this.now();
    if (s.status === 'pending' && effectiveStatus(s, now) === 'expired') {
      await this.deps.sessions.expire(s.session_id, now);
      return { ...s, status: 'expired', updated_at: now };
    }
    return s;
  }

  private chargeFor(s: SessionRecord): ChargeRecord {
    const base = money(s.fee_details.base_product_price, s.amount.currency);
    return newCharge(
      {
        merchant_id: s.merchant_id,
        mode: s.mode,
        reference: s.session_id,
        // A session's payment is bound to the session itself (its id is the reference).
        idempotency_key: null,
        request_fingerprint: '',
        status: 'pending',
        processor_group: s.processor_group,
        payment_gateway: s.payment_gateway,
        amount: base,
        total: base,
        conversion: null,
        fee_details: {
          base_amount: s.fee_details.base_product_price,
          transaction_fee: s.fee_details.transaction_fee,
          total_amount: s.fee_details.total_amount,
          customer_pays_fees: s.fee_details.customer_pays_fees,
        },
        customer: s.customer,
        metadata: s.metadata,
        description: s.product.name,
        callback_url: s.success_url,
        sub_merchant_id: null,
        split: null,
      },
      this.now(),
    );
  }

  private validate(r: SessionRequest) {
    const { amount, currency, email } = requirePaymentBasics(r);
    processorGroupFor(currency); // a session's currency must be one a processor group takes
    requirePositiveAmount(amount, 'amount');
    assertChargeable(money(amount, currency), 'amount');
    const productName = r.product_name?.trim() ?? '';
    const productId = r.product_id ? r.product_id : undefined;
    if (productId === undefined && !productName) {
      throw new PlatformError('MISSING_REQUIRED_FIELDS', undefined, {
        param: 'product_name',
        detail: 'one of product_id or product_name is required',
      });
    }
    if (productId !== undefined && (!Number.isSafeInteger(productId) || productId < 1)) {
      throw new PlatformError('VALIDATION_FAILED', 'product_id must be a positive integer', { param: 'product_id' });
    }
    if (productName.length > MAX_PRODUCT_NAME) {
      throw new PlatformError('VALIDATION_FAILED', `product_name must be at most ${MAX_PRODUCT_NAME} characters`, {
        param: 'product_name',
      });
    }
    if (!isEmailAddress(email)) {
      throw new PlatformError('VALIDATION_FAILED', 'customer.email is not a valid e-mail address', {
        param: 'customer.email',
      });
    }
    const frequency = r.subscription_frequency_key?.trim() || undefined;
    if (frequency !== undefined && !isSubscriptionFrequency(frequency)) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        `subscription_frequency_key must be one of ${SUBSCRIPTION_FREQUENCIES.join(', ')}`,
        { param: 'subscription_frequency_key' },
      );
    }
    const trialDays = r.trial_days || undefined;
    if (trialDays !== undefined) {
      if (!frequency) {
        throw new PlatformError('VALIDATION_FAILED', 'trial_days needs subscription_frequency_key', {
          param: 'trial_days',
        });
      }
      if (!Number.isSafeInteger(trialDays) || trialDays < TRIAL_DAYS_MIN || trialDays > TRIAL_DAYS_MAX) {
        throw new PlatformError(
          'VALIDATION_FAILED',
          `trial_days must be an integer from ${TRIAL_DAYS_MIN} to ${TRIAL_DAYS_MAX}`,
          { param: 'trial_days' },
        );
      }
    }
    return {
      amount,
      currency,
      email,
      productId,
      productName,
      successUrl: checkRedirectUrl(r.success_url, 'success_url'),
      cancelUrl: checkRedirectUrl(r.cancel_url, 'cancel_url'),
      frequency,
      trialDays,
    };
  }
}

/** The payload of payments.subscription_checkout.created (and the start of .completed's). */
function subscriptionCheckout(s: SessionRecord): SubscriptionCheckoutCreated {
  return {
    session_id: s.session_id,
    merchant_id: s.merchant_id,
    product: { id: s.product.id, title: s.product.name, type: s.product.type },
    price: money(s.fee_details.base_product_price, s.amount.currency),
    customer: s.customer,
    frequency: s.subscription_frequency_key as SubscriptionCheckoutCreated['frequency'],
    trial_days: s.trial_days ?? null,
    metadata: s.metadata,
    created_at: s.created_at.toISOString(),
    expires_at: s.expires_at.toISOString(),
  };
}

function subscriptionCheckoutEvent(s: SessionRecord): OutboxEntry {
  return outboxEvent(SUBJECTS.subscriptionCheckoutCreated, subscriptionCheckout(s), {
    merchantId: s.merchant_id,
    mode: s.mode,
  });
}

export function sessionNotFound(): PlatformError {
  return new PlatformError('SESSION_NOT_FOUND', undefined, { param: 'session_id' });
}

function assertPayable(s: SessionRecord): void {
  if (s.status === 'expired') {
    throw new PlatformError('SESSION_EXPIRED', undefined, {
      param: 'session_id',
      detail: 'session_expired',
    });
  }
  if (s.status === 'failed') {
    throw new PlatformError('SESSION_CLOSED', undefined, {
      param: 'session_id',
      detail: 'session_failed',
    });
  }
}
