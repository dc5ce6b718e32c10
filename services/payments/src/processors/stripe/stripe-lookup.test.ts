import type Stripe from 'stripe';
import { lookUpAnswerOf } from './stripe-lookup.adapter';

/** Which PaymentIntent states settle a charge when the reconciler reads one back (decision S20). */
const intent = (status: string, changes: Record<string, unknown> = {}) =>
  ({
    id: 'pi_1',
    amount: 2_500,
    currency: 'eur',
    status,
    last_payment_error: null,
    ...changes,
  }) as Stripe.PaymentIntent;

describe('a PaymentIntent read back by the reconciler', () => {
  it('succeeded settles the charge with Stripe’s amount', () => {
    expect(lookUpAnswerOf(intent('succeeded'))).toEqual({
      status: 'succeeded',
      amount: { amount: 2_500, currency: 'EUR' },
    });
  });

  it('canceled fails it with the decline that led to it, else why it was cancelled', () => {
    const declined = intent('canceled', {
      cancellation_reason: 'abandoned',
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' },
    });
    expect(lookUpAnswerOf(declined)).toEqual({
      status: 'failed',
      amount: { amount: 2_500, currency: 'EUR' },
      failure_reason: 'insufficient_funds',
    });
    expect(lookUpAnswerOf(intent('canceled', { cancellation_reason: 'duplicate' }))).toMatchObject({
      failure_reason: 'duplicate',
    });
  });

  it.each(['requires_payment_method', 'requires_confirmation', 'requires_action', 'processing', 'requires_capture'])(
    '%s is not final: the charge stays pending',
    (status) => {
      const afterDecline = intent(status, { last_payment_error: { code: 'card_declined' } });
      expect(lookUpAnswerOf(afterDecline)).toEqual({ status: 'pending' });
    },
  );
});
