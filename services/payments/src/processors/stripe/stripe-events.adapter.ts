import type Stripe from 'stripe';
import { PlatformError } from '@ppay/kernel';
import type { EventVerifier, VerifiedEvent } from '../processor-event';
import type { StripeEventMappers } from './stripe-event-mapping.adapter';
import { ACCOUNT_EVENTS } from './stripe-account-events.adapter';
import { CHECKOUT_EVENTS } from './stripe-checkout-events.adapter';
import { DISPUTE_EVENTS } from './stripe-dispute-events.adapter';
import { PAYMENT_EVENTS } from './stripe-payment-events.adapter';
import { REFUND_EVENTS } from './stripe-refund-events.adapter';
import { TRANSFER_EVENTS } from './stripe-transfer-events.adapter';

/** Stripe's own default: a signature older than 5 minutes is refused (replays). */
const TOLERANCE_SECONDS = 300;

/** Every Stripe event type the platform acts on, by kind. */
export const STRIPE_EVENTS: StripeEventMappers = {
  ...PAYMENT_EVENTS,
  ...REFUND_EVENTS,
  ...DISPUTE_EVENTS,
  ...CHECKOUT_EVENTS,
  ...ACCOUNT_EVENTS,
  ...TRANSFER_EVENTS,
};

/**
 * Verifies `Stripe-Signature` over the raw body with the library's constructEvent against each
 * configured endpoint secret (two while a secret is rolled), and maps the events the platform acts on.
 * Anything else verified is acknowledged and ignored.
 */
export class StripeEventVerifier implements EventVerifier {
  constructor(
    private readonly webhooks: Stripe['webhooks'],
    private readonly secrets: readonly string[],
    private readonly mappers: StripeEventMappers = STRIPE_EVENTS,
  ) {}

  verify(payload: Buffer, signature: string): VerifiedEvent {
    const event = this.construct(payload, signature);
    const map = Object.prototype.hasOwnProperty.call(this.mappers, event.type) ? this.mappers[event.type] : undefined;
    if (!map)
      return { kind: 'ignored', processor: 'stripe', event_id: event.id, type: event.type, why: 'unhandled_type' };
    const mapped = map(event);
    if (mapped === 'unhandled')
      return { kind: 'ignored', processor: 'stripe', event_id: event.id, type: event.type, why: 'unhandled_type' };
    if (mapped === 'not_ours')
      return { kind: 'ignored', processor: 'stripe', event_id: event.id, type: event.type, why: 'not_ours' };
    return { kind: 'event', event: mapped };
  }

  private construct(payload: Buffer, signature: string): Stripe.Event {
    if (!signature || signature.length > 2_000) throw invalidSignature();
    for (const secret of this.secrets) {
      try {
        return this.webhooks.constructEvent(payload, signature, secret, TOLERANCE_SECONDS);
      } catch {
        // The next secret may be the one (a roll in progress); none matching is the answer.
      }
    }
    throw invalidSignature();
  }
}

const invalidSignature = () =>
  new PlatformError('PROCESSOR_SIGNATURE_INVALID', undefined, { param: 'Stripe-Signature' });
