import type Stripe from 'stripe';
import { classifyStripeError, observedCall, stripeFailureError, type StripeObserver } from '@ppay/stripe-support';
import { PlatformError, processorGroupOf, type Mode } from '@ppay/kernel';
import type {
  AbandonAnswer,
  AbandonIntent,
  CheckoutAuthorization,
  CheckoutIntent,
  CheckoutPayment,
  LookUpAnswer,
  PaymentIntent,
  ProcessorAdapter,
  ProcessorAuthorization,
  ProcessorFeature,
  RefundAnswer,
  RefundIntent,
} from '../ports';
import { PROCESSOR_IDS } from '../processors';
import { checkoutPaymentOf, createCheckoutSession } from './stripe-checkout.adapter';
import type { StripeClient } from './stripe-client.adapter';
import type { StripeSettings } from './stripe-config.adapter';
import { lookUpAnswerOf } from './stripe-lookup.adapter';

/** The idempotency key of a charge's PaymentIntent: one PaymentIntent per charge, however often asked. */
export const paymentIntentKey = (chargeId: string) => `ppay_${chargeId}_payment_intent`;
/**
 * The idempotency key of cancelling a charge's PaymentIntent after one failure: a repeat (a crash, a
 * timeout) gets Stripe's first answer. Stripe keeps a refusal under its key for a day, so a later
 * failure of the same PaymentIntent (after a new attempt) asks under its own key.
 */
export const cancelKey = (chargeId: string, failureId: string) => `ppay_${chargeId}_cancel_${failureId.slice(0, 100)}`;
/** The idempotency key of a refund: one Stripe Refund per refund of ours, however often asked. */
export const refundKey = (refundId: string) => `ppay_${refundId}_refund`;

/**
 * A Stripe Refund's status as our answer: only `succeeded` and `failed`/`canceled` are final;
 * `pending` and `requires_action` wait for Stripe's event.
 */
export function refundAnswerOf(refund: Pick<Stripe.Refund, 'id' | 'status' | 'failure_reason'>): RefundAnswer {
  if (refund.status === 'succeeded') return { status: 'succeeded', processor_reference: refund.id };
  if (refund.status === 'failed' || refund.status === 'canceled') {
    return { status: 'failed', failure_reason: refund.failure_reason || refund.status };
  }
  return { status: 'pending', processor_reference: refund.id };
}

/**
 * The live card gateway on Stripe (USD, EUR, GBP, CAD, AUD). The platform's own Stripe account takes
 * every payment; merchants' shares go to their wallets and leave by the staged payouts
 * (docs/decisions.md, Live card payments), so `gateway_account_id` is the platform's account.
 * Charges, refunds and hosted checkout (a Stripe Checkout Session, which keeps the card of a
 * subscription or installment session for its off-session charges).
 */
export class StripeCardGateway implements ProcessorAdapter {
  readonly id = PROCESSOR_IDS.card;
  readonly mode: Mode = 'live';
  readonly features: readonly ProcessorFeature[] = ['charges', 'refunds', 'checkout'];
  private account: Promise<string> | null = null;

  constructor(
    private readonly client: StripeClient,
    private readonly settings: Pick<StripeSettings, 'publishableKey' | 'accountId'>,
    private readonly observer: StripeObserver,
    /** Stripe's clock, as far as the limits on a Checkout Session's expiry go. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  async initialise(intent: PaymentIntent): Promise<ProcessorAuthorization> {
    if (intent.mode !== 'live' || processorGroupOf(intent.amount.currency) !== 'card') {
      throw new PlatformError(
        'INTERNAL',
        `the Stripe card gateway cannot take a ${intent.mode} ${intent.amount.currency} charge`,
      );
    }
    const [created, accountId] = await Promise.all([
      this.call('payment_intents.create', () =>
        this.client.paymentIntents.create(
          {
            amount: intent.amount.amount,
            currency: intent.amount.currency.toLowerCase(),
            automatic_payment_methods: { enabled: true },
            description: intent.description ? intent.description.slice(0, 1_000) : undefined,
            metadata: { charge_id: intent.charge_id, merchant_id: String(intent.merchant_id), mode: intent.mode },
          },
          { idempotencyKey: paymentIntentKey(intent.charge_id) },
        ),
      ),
      this.accountId(),
    ]);
    if (!created.client_secret) {
      throw new PlatformError('INTERNAL', 'Stripe answered a PaymentIntent without a client secret');
    }
    return {
      processor_reference: created.id,
      client_secret: created.client_secret,
      publishable_key: this.settings.publishableKey,
      gateway_account_id: accountId,
    };
  }

  /** The session's Stripe Checkout Session: the customer pays on Stripe's page (`payment_url`). */
  initialiseCheckout(intent: CheckoutIntent): Promise<CheckoutAuthorization> {
    return createCheckoutSession(this.client, intent, (operation, run) => this.call(operation, run), this.now);
  }

  /** What a completed Checkout Session was paid with, and the card it kept (see stripe-checkout.adapter.ts). */
  checkoutPayment(processorReference: string): Promise<CheckoutPayment> {
    return checkoutPaymentOf(this.client, processorReference, (operation, run) => this.call(operation, run));
  }

  /**
   * Refunds the charge's PaymentIntent: one Stripe Refund per refund of ours (its idempotency key), which
   * Stripe usually answers `pending` or `succeeded`; its refund events settle a pending one. A refund
   * whose Stripe id is known is read back, never created again. One that may have been asked before
   * without an answer (a timeout, a crash) is looked up among the PaymentIntent's refunds by our
   * metadata first: Stripe forgets an idempotency key after a day, and a create under a forgotten key
   * would refund twice. Our free-text reason is not sent: Stripe's reasons are a closed list (and
   * `fraudulent` blocks the card), so guessing one would say something the merchant did not.
   */
  async refund(request: RefundIntent): Promise<RefundAnswer> {
    if (request.mode !== 'live' || !request.processor_reference) {
      throw new PlatformError('INTERNAL', `the Stripe card gateway cannot refund charge ${request.charge_id} here`);
    }
    if (request.refund_reference) {
      const id = request.refund_reference;
      return refundAnswerOf(await this.call('refunds.retrieve', () => this.client.refunds.retrieve(id)));
    }
    if (request.asked_before) {
      const found = await this.findRefund(request.processor_reference, request.refund_id);
      if (found) return refundAnswerOf(found);
    }
    const created = await this.call('refunds.create', () =>
      this.client.refunds.create(
        {
          payment_intent: request.processor_reference!,
          amount: request.amount.amount,
          metadata: {
            refund_id: request.refund_id,
            charge_id: request.charge_id,
            merchant_id: String(request.merchant_id),
            mode: request.mode,
          },
        },
        { idempotencyKey: refundKey(request.refund_id) },
      ),
    );
    return refundAnswerOf(created);
  }

  /** A refund of ours among the PaymentIntent's (a charge holds at most 100 refunds: one page). */
  private async findRefund(paymentIntent: string, refundId: string): Promise<Stripe.Refund | null> {
    const page = await this.call('refunds.list', () =>
      this.client.refunds.list({ payment_intent: paymentIntent, limit: 100 }),
    );
    return page.data.find((r) => r.metadata?.refund_id === refundId) ?? null;
  }

  /**
   * Cancels the PaymentIntent before its charge is failed: after `payment_intent.payment_failed` Stripe
   * still lets the customer pay it with another card. Stripe refuses to cancel one that succeeded or is
   * processing (and, once the idempotency key has expired, one already cancelled): what it is then, read
   * back, is the answer. Unavailable, timeout or any other refusal throw: nothing is known yet.
   */
  async abandon(payment: AbandonIntent): Promise<AbandonAnswer> {
    let refusal: string;
    try {
      await this.client.paymentIntents.cancel(
        payment.processor_reference,
        { cancellation_reason: 'abandoned' },
        { idempotencyKey: cancelKey(payment.charge_id, payment.failure_id) },
      );
      this.observer.call('payment_intents.cancel', 'ok');
      // Stripe answers a cancel with 200 only once the PaymentIntent is canceled.
      return 'cancelled';
    } catch (err) {
      const failure = classifyStripeError(err);
      this.observer.call('payment_intents.cancel', failure.kind);
      if (failure.kind !== 'refused') throw stripeFailureError(failure, 'cancel', () => this.observer.authFailure());
      refusal = failure.code;
    }
    const current = await this.call('payment_intents.retrieve', () =>
      this.client.paymentIntents.retrieve(payment.processor_reference),
    );
    if (current.status === 'succeeded') return 'succeeded';
    if (current.status === 'canceled') return 'cancelled';
    // Refused for its state, and not final: a new attempt is processing, or has since ended and Stripe
    // sends that attempt's own event (cancelled then under its own key).
    if (refusal === 'payment_intent_unexpected_state') return 'processing';
    throw new PlatformError('INTERNAL', `Stripe refused to cancel a ${current.status} PaymentIntent (${refusal})`);
  }

  /** The PaymentIntent as Stripe holds it now (the reconciler of missed events): see stripe-lookup.adapter.ts. */
  async lookUp(processorReference: string): Promise<LookUpAnswer> {
    const current = await this.call('payment_intents.retrieve', () =>
      this.client.paymentIntents.retrieve(processorReference),
    );
    return lookUpAnswerOf(current);
  }

  /** The platform's own account: configured, or read once from Stripe (a failed read is asked again next time). */
  private accountId(): Promise<string> {
    if (this.settings.accountId) return Promise.resolve(this.settings.accountId);
    this.account ??= this.call('accounts.retrieve', () => this.client.accounts.retrieveCurrent()).then(
      (account) => account.id,
      (err: unknown) => {
        this.account = null;
        throw err;
      },
    );
    return this.account;
  }

  private call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return observedCall(this.observer, operation, run);
  }
}
