import {
  isMinorUnitAmount,
  money,
  normaliseCountry,
  normaliseCurrency,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  type Mode,
  type Money,
  type OutboxEntry,
  type PaymentOutcome,
} from '@ppay/kernel';
import { UNKNOWN_COUNTRY, type ChargeRecord, type MetadataValue } from './charges';
import { feeBreakdown, type FeeSchedule } from './fees';
import { paymentOutcome } from './outcomes';
import type { GatewayRegistry, MerchantDirectory } from './ports';
import { gatewayGroupFor, type GatewayGroup } from './routing';

/**
 * Hosted checkout sessions (spec 2.3, 3.1, 4.2, 4.3). A session is its own aggregate (one document
 * in `sessions`); the payment made on it lives inside that document, so "payment succeeded +
 * session completed + payment.succeeded event" is one single-document write (docs/decisions-sessions.md).
 */
export type SessionStatus = 'pending' | 'completed' | 'expired' | 'failed';
export type PaymentType = 'one_time' | 'subscription';
export const SUBSCRIPTION_FREQUENCIES = ['monthly', 'quarterly', 'yearly'] as const;

export interface SessionRequest {
  amount?: number;
  currency?: string;
  product_id?: number;
  product_name?: string;
  customer?: { email?: string; first_name?: string; last_name?: string; country?: string };
  success_url?: string;
  cancel_url?: string;
  subscription_frequency_key?: string;
  metadata?: Record<string, MetadataValue>;
  idempotency_key?: string;
}

export interface SessionFeeDetails {
  base_product_price: number;
  transaction_fee: number;
  total_amount: number;
  customer_pays_fees: boolean;
}

export interface CardSummary {
  brand: string;
  last4: string;
}

/** A declined or failed attempt: its own charge id and transaction id, as payment.failed carries. */
export interface SessionAttempt {
  charge_id: string;
  transaction_id: string;
  status: 'failed';
  decline_code: string;
  card: CardSummary;
  at: Date;
}

/** The successful payment, a full charge record so the outcome event is built like a charge's. */
export type SessionPayment = ChargeRecord & { card: CardSummary };

export interface SessionRecord {
  id: string;
  gateway_session_id: string;
  merchant_id: number;
  mode: Mode;
  status: SessionStatus;
  /** What the customer pays: fee included when the customer pays fees (spec 2.3). */
  amount: number;
  currency: string;
  gateway_group: GatewayGroup;
  payment_gateway: string;
  product: { id: number | null; name: string; type: string };
  customer: { email: string; first_name: string; last_name: string; country: string };
  success_url: string;
  cancel_url: string;
  payment_type: PaymentType;
  subscription_frequency_key: string | null;
  metadata: Record<string, MetadataValue>;
  fee_details: SessionFeeDetails;
  expires_at: Date;
  created_at: Date;
  completed_at: Date | null;
  updated_at: Date;
  payment: SessionPayment | null;
  attempts: SessionAttempt[];
  attempt_count: number;
  /** A payment attempt in progress (claimed before the gateway is called, so one session cannot be paid twice). */
  in_flight: { attempt_id: string; started_at: Date } | null;
  idempotency_key: string | null;
}

/** How a finished payment attempt changes its session. */
export interface AttemptChange {
  status: SessionStatus;
  completed_at: Date | null;
  payment: SessionPayment | null;
  attempt: SessionAttempt | null;
  now: Date;
}

export interface SessionRepository {
  /** Inserts; when the merchant's idempotency key is taken returns the session that holds it. */
  insertOrGetByIdempotencyKey(session: SessionRecord): Promise<{ session: SessionRecord; created: boolean }>;
  findById(id: string): Promise<SessionRecord | null>;
  findForMerchant(id: string, merchantId: number, mode: Mode): Promise<SessionRecord | null>;
  /** pending, not past expires_at, no live attempt (or a stale one) → claims the attempt. */
  claimAttempt(id: string, attemptId: string, now: Date, staleBefore: Date): Promise<SessionRecord | null>;
  releaseAttempt(id: string, attemptId: string): Promise<void>;
  /** Ends the claimed attempt: state change, attempt record and event in one write. */
  finishAttempt(
    id: string,
    attemptId: string,
    change: AttemptChange,
    event: OutboxEntry,
  ): Promise<SessionRecord | null>;
  /** CAS pending → expired for one session past its expiry with no attempt in progress. */
  expire(id: string, now: Date): Promise<void>;
  /** The sweeper: every pending session past expires_at → expired. Returns how many. */
  expireDue(now: Date, staleBefore: Date): Promise<number>;
}

export interface ProductLookup {
  /** PRODUCT_NOT_FOUND when the merchant has no such product. */
  product(merchantId: number, mode: Mode, productId: number, currency: string): Promise<{ name: string; type: string }>;
}

export interface CardInput {
  number: string;
  expiry: string;
  cvc: string;
  name?: string;
}

export interface ValidCard {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  name: string;
}

export interface TestCard {
  number: string;
  outcome: 'succeeds' | 'declines' | 'fails_after_delay';
  description: string;
}

export type CardResult =
  | { approved: true; gateway_reference: string; card: CardSummary }
  | { approved: false; decline_code: string; message: string; card: CardSummary };

/** Authorises a card payment on a session (sandbox: deterministic test cards). */
export interface CheckoutProcessor {
  testCards(mode: Mode): TestCard[];
  authorise(
    payment: { charge_id: string; group: GatewayGroup; mode: Mode; amount: Money },
    card: ValidCard,
  ): Promise<CardResult>;
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

const MAX_URL_LENGTH = 2048;
const MAX_PRODUCT_NAME = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Absolute http(s) URL without credentials (the customer's browser is sent there). */
export function checkRedirectUrl(value: string | undefined, param: string): string {
  const raw = value?.trim() ?? '';
  if (!raw) return '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be an absolute http(s) URL`, { param });
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || raw.length > MAX_URL_LENGTH) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be an absolute http(s) URL`, { param });
  }
  if (url.username || url.password) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must not contain credentials`, { param });
  }
  return url.toString();
}

/** The merchant's URL with `session_id` appended (Stripe's {CHECKOUT_SESSION_ID}, as a query parameter). */
export function redirectWithSession(url: string, sessionId: string): string {
  if (!url) return '';
  const u = new URL(url);
  u.searchParams.set('session_id', sessionId);
  return u.toString();
}

/** Spec 3.1 at read time: a pending session past expires_at is expired, whether or not it was swept. */
export function effectiveStatus(s: SessionRecord, now: Date): SessionStatus {
  if (s.status === 'pending' && s.expires_at.getTime() <= now.getTime() && !s.in_flight) return 'expired';
  return s.status;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Card form rules: a Luhn-valid 12–19 digit number, a future MM/YY expiry, a 3–4 digit CVC. */
export function validateCard(input: CardInput | undefined, now: Date): ValidCard {
  const number = (input?.number ?? '').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhn(number)) {
    throw new PlatformError('VALIDATION_FAILED', 'Your card number is invalid', { param: 'card.number' });
  }
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(input?.expiry ?? '');
  const month = m ? Number(m[1]) : 0;
  const year = m ? (m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2])) : 0;
  const endOfMonth = Date.UTC(year, month, 1); // first instant after the expiry month
  if (!m || month < 1 || month > 12 || endOfMonth <= now.getTime()) {
    throw new PlatformError('VALIDATION_FAILED', "Your card's expiry date is invalid or in the past", {
      param: 'card.expiry',
    });
  }
  const cvc = (input?.cvc ?? '').trim();
  if (!/^\d{3,4}$/.test(cvc)) {
    throw new PlatformError('VALIDATION_FAILED', "Your card's security code is invalid", { param: 'card.cvc' });
  }
  return { number, exp_month: month, exp_year: year, cvc, name: (input?.name ?? '').trim().slice(0, 100) };
}

export class SessionService {
  constructor(
    private readonly deps: {
      merchants: MerchantDirectory;
      gateways: GatewayRegistry;
      products: ProductLookup;
      sessions: SessionRepository;
      processor: CheckoutProcessor;
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
    const group = gatewayGroupFor(input.currency);
    // Live sessions need a live gateway, exactly as live charges do (GATEWAY_NOT_CONFIGURED otherwise).
    const adapter = this.deps.gateways.adapterFor(group, mode);
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
      id,
      gateway_session_id: authorization.gateway_reference,
      merchant_id: merchantId,
      mode,
      status: 'pending',
      amount: fee.total_amount,
      currency: input.currency,
      gateway_group: group,
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
    const saved = await this.deps.sessions.insertOrGetByIdempotencyKey(record);
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
        {
          charge_id: charge.id,
          group: claimed.gateway_group,
          mode: claimed.mode,
          amount: money(claimed.amount, claimed.currency),
        },
        card,
      );
    } catch (err) {
      await this.deps.sessions.releaseAttempt(sessionId, attemptId);
      throw err;
    }
    const at = this.now();
    const target = result.approved ? 'succeeded' : 'failed';
    const finished: ChargeRecord = {
      ...charge,
      status: target,
      gateway: result.approved ? { gateway_reference: result.gateway_reference } : null,
      failure_reason: result.approved ? null : result.decline_code,
      completed_at: at,
      updated_at: at,
    };
    const event = outboxEvent(
      result.approved ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed,
      sessionOutcome(claimed, finished, at),
      { merchantId: claimed.merchant_id, mode: claimed.mode },
    );
    const attempts = claimed.attempt_count + 1;
    const saved = await this.deps.sessions.finishAttempt(
      sessionId,
      attemptId,
      result.approved
        ? { status: 'completed', completed_at: at, payment: { ...finished, card: result.card }, attempt: null, now: at }
        : {
            status: attempts >= this.options.maxAttempts ? 'failed' : 'pending',
            completed_at: attempts >= this.options.maxAttempts ? at : null,
            payment: null,
            attempt: {
              charge_id: finished.id,
              transaction_id: finished.transaction_id,
              status: 'failed',
              decline_code: result.decline_code,
              card: result.card,
              at,
            },
            now: at,
          },
      event,
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
      await this.deps.sessions.expire(s.id, now);
      return { ...s, status: 'expired', updated_at: now };
    }
    return s;
  }

  private chargeFor(s: SessionRecord): ChargeRecord {
    const now = this.now();
    return {
      id: prefixedId('ch'),
      transaction_id: prefixedId('txn'),
      merchant_id: s.merchant_id,
      mode: s.mode,
      reference: s.id,
      status: 'pending',
      gateway_group: s.gateway_group,
      payment_gateway: s.payment_gateway,
      amount: s.fee_details.base_product_price,
      currency: s.currency,
      total_amount: s.fee_details.base_product_price,
      total_currency: s.currency,
      conversion: null,
      fee: {
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
      gateway: null,
      created_at: now,
      updated_at: now,
    };
  }

  private validate(r: SessionRequest) {
    if (r.amount === undefined || r.amount === null)
      throw new PlatformError('AMOUNT_REQUIRED', undefined, { param: 'amount' });
    const email = r.customer?.email?.trim();
    if (!r.currency?.trim() || !email) {
      throw new PlatformError('MISSING_REQUIRED_FIELDS', undefined, {
        param: !r.currency?.trim() ? 'currency' : 'customer.email',
        detail: 'amount, currency and customer.email are required',
      });
    }
    const currency = normaliseCurrency(r.currency);
    if (!currency)
      throw new PlatformError('UNSUPPORTED_CURRENCY', `Unknown currency ${r.currency}`, { param: 'currency' });
    gatewayGroupFor(currency); // a session's currency must be one a gateway group takes
    if (!isMinorUnitAmount(r.amount) || r.amount <= 0) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        "amount must be a positive integer in the currency's smallest unit",
        {
          param: 'amount',
        },
      );
    }
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
    if (!EMAIL.test(email) || email.length > 254) {
      throw new PlatformError('VALIDATION_FAILED', 'customer.email is not a valid e-mail address', {
        param: 'customer.email',
      });
    }
    const frequency = r.subscription_frequency_key?.trim() || undefined;
    if (frequency && !(SUBSCRIPTION_FREQUENCIES as readonly string[]).includes(frequency)) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        `subscription_frequency_key must be one of ${SUBSCRIPTION_FREQUENCIES.join(', ')}`,
        { param: 'subscription_frequency_key' },
      );
    }
    return {
      amount: r.amount,
      currency,
      email,
      productId,
      productName,
      successUrl: checkRedirectUrl(r.success_url, 'success_url'),
      cancelUrl: checkRedirectUrl(r.cancel_url, 'cancel_url'),
      frequency,
    };
  }
}

/** payment.succeeded / payment.failed for a session's charge: the charge outcome plus the session's data. */
export function sessionOutcome(s: SessionRecord, charge: ChargeRecord, at: Date): PaymentOutcome {
  const status = charge.status === 'succeeded' ? 'succeeded' : 'failed';
  return {
    ...paymentOutcome(charge, status, charge.failure_reason ?? null, at),
    payment_type: s.payment_type,
    session_id: s.id,
    product: { id: s.product.id, title: s.product.name, type: s.product.type },
    subscription_frequency_key: s.subscription_frequency_key,
    metadata: s.metadata,
  };
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
