import {
  money,
  normaliseCountry,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  type Mode,
  type Money,
  type OutboxEntry,
} from '@ppay/kernel';
import { UNKNOWN_COUNTRY, type ChargeRecord } from '../charges/charge';
import { feeBreakdown, type FeeBreakdown, type FeeSchedule } from '../charges/fees';
import { activeSubMerchantSplit } from '../charges/sub-merchant-split';
import type { PaymentMethodService } from '../payment-methods/payment-methods';
import type { ChargeRepository, MerchantDirectory, SessionRepository, SplitResolver } from '../ports';
import { validateCard, type CardInput, type CardResult, type TestCard } from '../processors/cards';
import type { CardProcessor, ProcessorRegistry } from '../processors/ports';
import { processorGroupFor } from '../processors/processors';
import { installmentCheckoutCompleted, installmentParts } from './installment-checkout';
import { checkoutPurpose, liveReplay } from './processor-checkout';
import type { GoodsCheckout } from './goods-checkout';
import type { LiveGoodsCheckout } from './live-goods';
import { assertSoldOnce, shippingAddressOf, type AddressInput } from './physical-goods';
import type { ProductLookup } from './ports';
import { redirectWithSession } from './redirects';
import {
  attemptCharge,
  checkoutView,
  effectiveStatus,
  newSession,
  paidCharge,
  sessionOutcome,
  type SessionDraft,
  type SessionRecord,
} from './session';
import { validateSessionRequest, type SessionRequest } from './session-request';
import { subscriptionCheckoutCompleted, subscriptionCheckoutCreated } from './subscription-checkout';

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
  | { result: 'declined'; session: SessionRecord; decline_code: string; message: string }
  | { result: 'sold_out'; session: SessionRecord; message: string };

const SOLD_OUT = 'Sorry, this product is sold out. You have not been charged.';

export class SessionService {
  constructor(
    private readonly deps: {
      merchants: MerchantDirectory;
      processors: ProcessorRegistry;
      products: ProductLookup;
      sessions: SessionRepository;
      cards: CardProcessor;
      /** Saves the card of a paid subscription session for its renewals. */
      paymentMethods: Pick<PaymentMethodService, 'saveFromCheckout'>;
      /** Where a paid session's charge is copied (paidCharge). */
      charges: Pick<ChargeRepository, 'insert'>;
      /** Physical products: their price, stock and orders. */
      goods: GoodsCheckout;
      /** A marketplace session: the operator's terms with its sub-merchant. */
      splits: SplitResolver;
      /** Live physical sessions: stored, their units held, then opened at the processor. */
      liveGoods: Pick<LiveGoodsCheckout, 'open' | 'resume'>;
    },
    private readonly options: SessionServiceOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(
    merchantId: number,
    mode: Mode,
    r: SessionRequest,
  ): Promise<{ session: SessionRecord; replayed: boolean }> {
    // A physical product prices its own line (quantity, variation, shipping): the amount may be left out.
    const found = await this.catalogueProduct(merchantId, mode, r.product_id);
    if (found) assertSoldOnce(found, r);
    const goods = found ? await this.deps.goods.price(found, r.product_id!, r, mode) : null;
    const input = validateSessionRequest(
      goods ? { ...r, amount: goods.amount.amount, currency: goods.amount.currency } : r,
      goods !== null,
    );
    const merchant = await this.deps.merchants.get(merchantId);
    const split = input.subMerchantId
      ? await activeSubMerchantSplit(this.deps.splits, merchantId, input.subMerchantId, mode)
      : null;
    const group = processorGroupFor(input.currency);
    // Live sessions need a live processor, exactly as live charges do (GATEWAY_NOT_CONFIGURED otherwise).
    const adapter = this.deps.processors.adapterFor(group, mode, 'checkout');
    let product = { id: null as number | null, name: input.productName, type: 'custom' };
    if (found && input.productId !== undefined) {
      product = { id: input.productId, name: input.productName || found.name, type: found.type };
      // A catalogue product is split only when the merchant allows it; an amount sold by name, by the
      // session's own `installments` (docs/decisions.md, Installment plans).
      if (input.installments && !found.installments_allowed) {
        throw new PlatformError('INSTALLMENTS_NOT_ALLOWED', undefined, { param: 'installments' });
      }
    }
    const priced = (base: Money) => feeBreakdown(this.options.feeSchedule, group, base, merchant.customer_pays_fees);
    const installments = input.installments
      ? installmentParts(money(input.amount, input.currency), input.installments, priced)
      : null;
    // An installment session charges its first part on the page; the others are charged by subscriptions.
    const fee: FeeBreakdown = installments
      ? priced(installments.parts[0]!.base)
      : priced(money(input.amount, input.currency));
    const now = this.now();
    const replay = await liveReplay(this.deps.sessions, merchantId, mode, r.idempotency_key);
    // A live physical session whose create a crash interrupted is opened now (live-goods.ts).
    if (replay) return { session: await this.deps.liveGoods.resume(replay, adapter), replayed: true };
    const id = prefixedId('cs', 32); // 32 base62 ≈ 190 bits: the id is the checkout page's capability
    const expiresAt = new Date(now.getTime() + this.options.ttlMs);
    const draft: Omit<SessionDraft, 'gateway_session_id' | 'payment_url' | 'expires_at'> = {
      session_id: id,
      merchant_id: merchantId,
      mode,
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
      subscription_frequency_key: input.frequency ?? null,
      trial_days: input.trialDays ?? null,
      installments,
      goods: goods?.line ?? null,
      sub_merchant_id: split ? input.subMerchantId! : null,
      split: split && { commission_rate: split.commission_rate, commission_source: split.commission_source },
      metadata: r.metadata ?? {},
      idempotency_key: r.idempotency_key?.trim() || null,
      fee,
    };
    if (goods && mode === 'live') {
      // Its units are held for its whole life, so it is stored before its processor's session (S32).
      const unopened = { ...draft, gateway_session_id: '', payment_url: null, expires_at: expiresAt };
      return this.deps.liveGoods.open(newSession(unopened, now), adapter);
    }
    const authorization = await adapter.initialiseCheckout({
      session_id: id,
      merchant_id: merchantId,
      mode,
      amount: fee.total,
      customer_email: input.email,
      description: product.name,
      success_url: redirectWithSession(input.successUrl, id),
      cancel_url: redirectWithSession(input.cancelUrl, id),
      expires_at: expiresAt,
      purpose: checkoutPurpose({
        installments,
        subscription_frequency_key: input.frequency ?? null,
        trial_days: input.trialDays ?? null,
      }),
    });
    const record = newSession(
      {
        ...draft,
        gateway_session_id: authorization.processor_reference,
        payment_url: authorization.payment_url,
        expires_at: authorization.expires_at,
      },
      now,
    );
    const events = record.payment_type === 'subscription' ? [subscriptionCheckoutCreated(record)] : [];
    const saved = await this.deps.sessions.insertOrGetByIdempotencyKey(record, events);
    return { session: saved.session, replayed: !saved.created };
  }

  /** The session's catalogue product (after its id's own checks), or undefined when it names none. */
  private async catalogueProduct(merchantId: number, mode: Mode, productId: number | undefined) {
    if (productId === undefined || productId === 0) return undefined;
    if (!Number.isSafeInteger(productId) || productId < 1) {
      throw new PlatformError('VALIDATION_FAILED', 'product_id must be a positive integer', { param: 'product_id' });
    }
    return this.deps.products.product(merchantId, mode, productId);
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
    return this.deps.cards.testCards(mode);
  }

  attemptsLeft(s: SessionRecord): number {
    return Math.max(0, this.options.maxAttempts - s.attempt_count);
  }

  /** The hosted page's view of a session; the merchant's name falls back to its id on the page. */
  async view(s: SessionRecord, lastDeclineMessage = '') {
    const merchant = await this.deps.merchants.get(s.merchant_id).catch(() => undefined);
    return checkoutView(
      s,
      {
        business_name: merchant?.business_name ?? '',
        attempts_left: this.attemptsLeft(s),
        test_cards: this.testCards(s.mode),
        last_decline_message: lastDeclineMessage,
      },
      this.now(),
    );
  }

  /**
   * The customer pays on the hosted page. A decline leaves the session open for another card (as
   * Stripe Checkout does) until `maxAttempts` declines, which fail it. Success completes it. Either
   * way the charge's outcome event goes into the session's outbox in the same write.
   */
  async pay(sessionId: string, cardInput: CardInput | undefined, addressInput?: AddressInput): Promise<PayResult> {
    const current = await this.checkout(sessionId);
    if (current.status === 'completed') return { result: 'succeeded', session: await this.recordCharge(current) };
    assertPayable(current);
    // A session stored before creation refused the combination: nothing is held or charged for it.
    if (current.goods && current.payment_type !== 'one_time') {
      throw new PlatformError('PHYSICAL_GOODS_NOT_RECURRING', undefined, { param: 'session_id' });
    }
    if (current.mode !== 'sandbox') {
      // Never a card (nor an address) on our page in live mode: the customer pays on the processor's.
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, {
        detail: "a live session is paid on the processor's page (payment_url), not here",
      });
    }
    const card = validateCard(cardInput, this.now());
    const address = current.goods ? shippingAddressOf(addressInput, current.goods) : null;
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
      if (now.status === 'completed') return { result: 'succeeded', session: await this.recordCharge(now) };
      assertPayable(now);
      throw new PlatformError('CONFLICT', 'A payment for this checkout session is already being processed', {
        param: 'session_id',
      });
    }
    if (claimed.goods) {
      // The units are taken before the card is charged: sold out means no charge at all.
      const held = await this.deps.goods.hold(claimed).catch(async (err: unknown) => {
        await this.deps.sessions.releaseAttempt(sessionId, attemptId);
        throw err;
      });
      if (held === 'sold_out') {
        await this.deps.sessions.releaseAttempt(sessionId, attemptId);
        return { result: 'sold_out', session: await this.checkout(sessionId), message: SOLD_OUT };
      }
    }
    const charge = attemptCharge(claimed, this.now());
    let result: CardResult;
    try {
      result = await this.deps.cards.authorise(
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
    if (result.approved && claimed.payment_type !== 'one_time') {
      // Saved before the session completes, so the completion event never names a method that does not exist;
      // a crash in between leaves an unused method that the next attempt on this session reuses.
      const method = await this.deps.paymentMethods.saveFromCheckout({
        session_id: claimed.session_id,
        merchant_id: claimed.merchant_id,
        mode: claimed.mode,
        customer_email: claimed.customer.email,
        card: this.deps.cards.saveCard(card),
      });
      events.push(
        claimed.installments
          ? installmentCheckoutCompleted(claimed, method, finished, at)
          : subscriptionCheckoutCompleted(claimed, method, trial ? null : finished, at),
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
            ...(address ? { shipping_address: address, stock_state: 'commit' as const } : {}),
            now: at,
          }
        : {
            status: attempts >= this.options.maxAttempts ? 'failed' : 'pending',
            completed_at: attempts >= this.options.maxAttempts ? at : null,
            payment: null,
            // Its units go back now, or by the stock sweep if this is lost to a crash or an outage.
            ...(claimed.goods ? { stock_state: 'release' as const } : {}),
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
    if (saved.goods) {
      // Repeated by the stock sweep and the payment.succeeded consumer if this is lost to a crash.
      await (result.approved ? this.deps.goods.paid(saved) : this.deps.goods.release(saved)).catch(() => undefined);
    }
    if (result.approved) return { result: 'succeeded', session: await this.recordCharge(saved) };
    return { result: 'declined', session: saved, decline_code: result.decline_code, message: result.message };
  }

  /**
   * Copies the paid session's charge into the charges (idempotent: its reference is the session id). A
   * failure here does not undo the customer's payment; the ledger reconciler copies it later.
   */
  private async recordCharge(s: SessionRecord): Promise<SessionRecord> {
    const charge = paidCharge(s);
    if (charge) await this.deps.charges.insert(charge).catch(() => false);
    return s;
  }

  /** The hosted page: what it shows of the session (the session id is the capability). */
  async page(sessionId: string) {
    return this.view(await this.checkout(sessionId));
  }

  /** The customer pays on the page: the page after it, and where the customer goes next if it paid. */
  async payOnPage(sessionId: string, card: CardInput, address?: AddressInput) {
    const r = await this.pay(sessionId, card, address);
    if (r.result === 'succeeded') {
      return {
        result: r.result,
        checkout: await this.view(r.session),
        redirect_url: redirectWithSession(r.session.success_url, r.session.session_id),
      };
    }
    if (r.result === 'sold_out') {
      return {
        result: r.result,
        decline_code: 'sold_out',
        message: r.message,
        checkout: await this.view(r.session, r.message),
      };
    }
    const { result, decline_code, message } = r;
    return { result, decline_code, message, checkout: await this.view(r.session, message) };
  }

  /**
   * The customer leaves for the merchant's cancel URL. The session stays open until it expires, so
   * "back" can still pay (Stripe's behaviour).
   */
  async cancel(sessionId: string) {
    const s = await this.checkout(sessionId);
    return { redirect_url: redirectWithSession(s.cancel_url, s.session_id), checkout: await this.view(s) };
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
