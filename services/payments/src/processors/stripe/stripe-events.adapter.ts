import type Stripe from 'stripe';
import { MODES, money, PlatformError, processorGroupOf, type Mode } from '@ppay/kernel';
import type { EventVerifier, VerifiedEvent } from '../processor-events';

/** Stripe's own default: a signature older than 5 minutes is refused (replays). */
const TOLERANCE_SECONDS = 300;
const OUTCOMES: Record<string, 'succeeded' | 'failed'> = {
  'payment_intent.succeeded': 'succeeded',
  'payment_intent.payment_failed': 'failed',
};

/**
 * Verifies `Stripe-Signature` over the raw body with the library's constructEvent against each
 * configured endpoint secret (two while a secret is rolled), and maps the payment intent events the
 * platform acts on. Anything else verified is acknowledged and ignored.
 */
export class StripeEventVerifier implements EventVerifier {
  constructor(
    private readonly webhooks: Stripe['webhooks'],
    private readonly secrets: readonly string[],
  ) {}

  verify(payload: Buffer, signature: string): VerifiedEvent {
    const event = this.construct(payload, signature);
    const outcome = OUTCOMES[event.type];
    if (!outcome)
      return { kind: 'ignored', processor: 'stripe', event_id: event.id, type: event.type, why: 'unhandled_type' };
    const intent = event.data.object as Stripe.PaymentIntent;
    const meta = intent.metadata ?? {};
    const merchantId = Number(meta.merchant_id);
    const currency = String(intent.currency ?? '').toUpperCase();
    // A payment the platform did not make (another integration on the same account) is none of ours.
    if (
      !meta.charge_id ||
      !Number.isSafeInteger(merchantId) ||
      !MODES.includes(meta.mode as Mode) ||
      processorGroupOf(currency) !== 'card'
    ) {
      return { kind: 'ignored', processor: 'stripe', event_id: event.id, type: event.type, why: 'not_ours' };
    }
    const error = intent.last_payment_error;
    return {
      kind: 'event',
      event: {
        processor: 'stripe',
        event_id: event.id,
        type: event.type,
        outcome,
        charge_id: meta.charge_id.slice(0, 64),
        merchant_id: merchantId,
        mode: meta.mode as Mode,
        processor_reference: intent.id,
        amount: money(intent.amount, currency),
        failure_reason: outcome === 'failed' ? (error?.decline_code ?? error?.code ?? 'declined') : null,
      },
    };
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
