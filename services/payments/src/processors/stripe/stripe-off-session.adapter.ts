import Stripe from 'stripe';
import {
  classifyStripeError,
  observedCall,
  redactKeys,
  stripeFailureError,
  type StripeObserver,
} from '@ppay/stripe-support';
import { PlatformError, processorGroupOf } from '@ppay/kernel';
import type { CardResult, ProcessorSavedCard, SavedCardPayment } from '../cards';
import type { SavedCardCharger } from '../ports';
import type { StripeClient } from './stripe-client.adapter';
import { paymentIntentKey } from './stripe-payments.adapter';

/** The metadata marker of a PaymentIntent made without the customer (its events are read apart: S39). */
export const OFF_SESSION_MARKER = 'off_session';

/**
 * How far before our charge's creation a PaymentIntent made for it is looked for: the two clocks may
 * differ a little, and a PaymentIntent is only ever made after its charge.
 */
const CLOCK_SLACK_S = 10 * 60;

/** One page of a customer's PaymentIntents: the most Stripe lists at once. */
const LOOK_UP_PAGE = 100;

/**
 * Off-session charges of cards saved at Stripe (a Customer and its PaymentMethod): renewals and
 * installment parts (docs/decisions.md S36–S37). One PaymentIntent per charge of ours: created and
 * confirmed in one call (`off_session`, `confirm`, cards only) under the charge's own idempotency key,
 * so any retry within Stripe's day of keys is the same PaymentIntent. A charge reclaimed after a
 * timeout or a crash (`asked_before`) may be asked again after that day: the PaymentIntent it may have
 * made is first looked for among the customer's created since the charge (our `charge_id` metadata),
 * and only when none is there is one created.
 */
export class StripeOffSessionCharger implements SavedCardCharger {
  readonly processor = 'stripe';

  constructor(
    private readonly client: StripeClient,
    private readonly observer: StripeObserver,
  ) {}

  async chargeSaved(payment: SavedCardPayment, card: ProcessorSavedCard): Promise<CardResult> {
    if (
      payment.mode !== 'live' ||
      card.processor !== this.processor ||
      processorGroupOf(payment.amount.currency) !== 'card'
    ) {
      throw new PlatformError(
        'INTERNAL',
        `Stripe cannot charge a ${payment.mode} ${payment.amount.currency} payment of a card saved at ${card.processor}`,
      );
    }
    if (payment.asked_before) {
      const found = await this.find(payment, card);
      if (found) return answerOf(found, payment, card);
    }
    const operation = 'payment_intents.create';
    let created: Stripe.PaymentIntent;
    try {
      created = await this.client.paymentIntents.create(
        {
          amount: payment.amount.amount,
          currency: payment.amount.currency.toLowerCase(),
          customer: card.customer_reference,
          payment_method: card.method_reference,
          payment_method_types: ['card'],
          off_session: true,
          confirm: true,
          metadata: {
            charge_id: payment.charge_id,
            merchant_id: String(payment.merchant_id),
            mode: payment.mode,
            [OFF_SESSION_MARKER]: 'true',
          },
        },
        { idempotencyKey: paymentIntentKey(payment.charge_id) },
      );
    } catch (err) {
      const declined = declineOf(err, card);
      this.observer.call(operation, declined ? 'declined' : classifyStripeError(err).kind);
      if (declined) return declined;
      throw stripeFailureError(classifyStripeError(err), operation, () => this.observer.authFailure());
    }
    this.observer.call(operation, 'ok');
    return answerOf(created, payment, card);
  }

  /**
   * The PaymentIntent made for this charge, if any: one page of the customer's, newest first, created
   * since the charge. A full page without it cannot say that none was made, so nothing is created then
   * (a second payment is worse than a renewal that waits for an operator).
   */
  private async find(payment: SavedCardPayment, card: ProcessorSavedCard): Promise<Stripe.PaymentIntent | null> {
    const since = Math.floor(payment.created_at.getTime() / 1000) - CLOCK_SLACK_S;
    const page = await observedCall(this.observer, 'payment_intents.list', () =>
      this.client.paymentIntents.list({
        customer: card.customer_reference,
        created: { gte: since },
        limit: LOOK_UP_PAGE,
      }),
    );
    const found = page.data.find((pi) => pi.metadata?.charge_id === payment.charge_id);
    if (found) return found;
    if (page.has_more) {
      throw new PlatformError('INTERNAL', `cannot tell whether Stripe charged ${payment.charge_id} already`, {
        detail: `more than ${LOOK_UP_PAGE} PaymentIntents of its customer since the charge; nothing was created`,
      });
    }
    return null;
  }
}

/**
 * A PaymentIntent made for one of our off-session charges, as our answer. `succeeded` is approved;
 * `processing` is not known yet (asked again later, found by the look-up); a PaymentIntent left needing
 * the customer (`requires_action`: authentication) or another card (`requires_payment_method` after a
 * decline), or cancelled, is declined with Stripe's decline code: nobody holds its client secret, so
 * nothing can be taken on it any more. A PaymentIntent for another amount is never taken for ours.
 */
function answerOf(pi: Stripe.PaymentIntent, payment: SavedCardPayment, card: ProcessorSavedCard): CardResult {
  const summary = { brand: card.brand, last4: card.last4 };
  if (pi.amount !== payment.amount.amount || String(pi.currency).toUpperCase() !== payment.amount.currency) {
    throw new PlatformError('INTERNAL', `PaymentIntent ${pi.id} of charge ${payment.charge_id} is for another amount`);
  }
  const error = pi.last_payment_error;
  switch (pi.status) {
    case 'succeeded':
      return { approved: true, processor_reference: pi.id, card: summary };
    case 'processing':
      throw new PlatformError('UPSTREAM_TIMEOUT', 'The payment processor is still processing the payment', {
        detail: `card_gateway payment_intents.create: ${pi.id} is processing; ask again with the same key`,
      });
    case 'requires_action':
    case 'requires_payment_method':
    case 'canceled': {
      const fallback =
        pi.status === 'requires_action'
          ? 'authentication_required'
          : pi.status === 'canceled'
            ? (pi.cancellation_reason ?? 'canceled')
            : 'card_declined';
      return {
        approved: false,
        decline_code: error?.decline_code || error?.code || fallback,
        message: redactKeys(error?.message ?? 'The card was declined.'),
        card: summary,
        processor_reference: pi.id,
      };
    }
    default:
      // requires_confirmation / requires_capture cannot follow a confirmed, automatically captured create.
      throw new PlatformError('INTERNAL', `PaymentIntent ${pi.id} of an off-session charge is ${pi.status}`);
  }
}

/**
 * A create that Stripe refused for the card: a card error (a decline, `authentication_required`, an
 * expired card…) with the PaymentIntent it left declined, or a saved method or customer that no longer
 * exists at Stripe (detached, deleted), which no retry can charge: `payment_method_unavailable`.
 */
function declineOf(err: unknown, card: ProcessorSavedCard): CardResult | null {
  const summary = { brand: card.brand, last4: card.last4 };
  const failure = classifyStripeError(err);
  if (failure.kind === 'declined') {
    const pi = (err as Stripe.errors.StripeError).payment_intent;
    return {
      approved: false,
      decline_code: failure.decline_code,
      message: failure.message,
      card: summary,
      ...(pi?.id ? { processor_reference: pi.id } : {}),
    };
  }
  if (
    err instanceof Stripe.errors.StripeInvalidRequestError &&
    (err.param === 'payment_method' || err.param === 'customer')
  ) {
    return {
      approved: false,
      decline_code: 'payment_method_unavailable',
      message: redactKeys(err.message),
      card: summary,
    };
  }
  return null;
}
