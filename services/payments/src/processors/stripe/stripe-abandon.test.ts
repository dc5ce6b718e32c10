import { money, SUBJECTS } from '@ppay/kernel';
import { testCharge, testFees } from '../../charges/charge.test-util';
import { OutcomeService } from '../../charges/outcomes';
import { MemoryCharges } from '../../memory-ports.test-util';
import { PaymentEventApplier } from '../payment-events';
import type { ProcessorEvent } from '../processor-event';
import { ProcessorEventInbox } from '../processor-events';
import { appliersOf, MemoryProcessorEvents } from '../processor-events.test-util';
import { StaticProcessorRegistry } from '../sandbox-processors.adapter';
import { cancelKey } from './stripe-payments.adapter';
import { gateway, scriptedStripe, stripeError, type Script } from './stripe.test-util';

/**
 * A failed PaymentIntent is cancelled at Stripe before its charge is failed (Stripe lets the customer
 * retry on it): the adapter's answers through the real library, then the inbox's flow on top of it.
 */
const PAYMENT = { charge_id: 'ch_unit_1', processor_reference: 'pi_123', failure_id: 'evt_fail_1' };
const intentIn = (status: string) => ({ id: 'pi_123', object: 'payment_intent', status });
const unexpectedState = stripeError(400, 'invalid_request_error', {
  code: 'payment_intent_unexpected_state',
  message: 'You cannot cancel this PaymentIntent because it has a status of succeeded.',
});

/** Cancel answers `cancel`; a read of the PaymentIntent answers it in `status`. */
const stripeWhere =
  (cancel: ReturnType<Script>, status = 'requires_payment_method'): Script =>
  (req) =>
    req.url === '/v1/payment_intents/pi_123/cancel' ? cancel : { status: 200, json: intentIn(status) };

describe('Stripe card gateway: abandoning a failed PaymentIntent', () => {
  it('cancels it under a key of the charge and the failure, and answers cancelled', async () => {
    const stripe = await scriptedStripe(stripeWhere({ status: 200, json: intentIn('canceled') }));
    try {
      const { adapter, calls } = gateway(stripe.settings());
      expect(await adapter.abandon(PAYMENT)).toBe('cancelled');
      expect(stripe.seen).toHaveLength(1);
      const [cancel] = stripe.seen;
      expect(cancel).toMatchObject({ method: 'POST', path: '/v1/payment_intents/pi_123/cancel' });
      expect(cancel!.headers['idempotency-key']).toBe(cancelKey('ch_unit_1', 'evt_fail_1'));
      expect(cancel!.headers['idempotency-key']).toBe('ppay_ch_unit_1_cancel_evt_fail_1');
      expect(Object.fromEntries(new URLSearchParams(cancel!.body))).toEqual({ cancellation_reason: 'abandoned' });
      expect(calls).toEqual(['payment_intents.cancel:ok']);
    } finally {
      await stripe.close();
    }
  });

  it.each([
    ['succeeded', 'succeeded'],
    ['processing', 'processing'],
    // The key expired (a day later) and it was cancelled the first time.
    ['canceled', 'cancelled'],
    // A new attempt that has since failed again: its own event cancels it under its own key.
    ['requires_payment_method', 'processing'],
  ])('a cancel refused for its state reads the PaymentIntent back: %s answers %s', async (status, answer) => {
    const stripe = await scriptedStripe(stripeWhere(unexpectedState, status));
    try {
      const { adapter, calls } = gateway(stripe.settings());
      expect(await adapter.abandon(PAYMENT)).toBe(answer);
      expect(stripe.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /v1/payment_intents/pi_123/cancel',
        'GET /v1/payment_intents/pi_123',
      ]);
      expect(calls).toEqual(['payment_intents.cancel:refused', 'payment_intents.retrieve:ok']);
    } finally {
      await stripe.close();
    }
  });

  it('any other refusal of an open PaymentIntent is our bug (INTERNAL), never taken as cancelled', async () => {
    const stripe = await scriptedStripe(stripeWhere(stripeError(400, 'invalid_request_error', { param: 'x' })));
    try {
      await expect(gateway(stripe.settings()).adapter.abandon(PAYMENT)).rejects.toMatchObject({ code: 'INTERNAL' });
    } finally {
      await stripe.close();
    }
  });

  it.each([
    ["Stripe's 5xx", stripeError(503, 'api_error'), 'SERVICE_UNAVAILABLE'],
    ['no answer in time', { status: 0, hang: true }, 'UPSTREAM_TIMEOUT'],
  ])('%s while cancelling is an error (nothing known), and nothing is read back', async (_name, answer, code) => {
    const stripe = await scriptedStripe(stripeWhere(answer, 'succeeded'));
    try {
      const { adapter } = gateway(stripe.settings({ timeoutMs: 150 }));
      await expect(adapter.abandon(PAYMENT)).rejects.toMatchObject({ code });
      expect(stripe.seen.map((r) => r.path)).toEqual(['/v1/payment_intents/pi_123/cancel']);
    } finally {
      await stripe.close();
    }
  });
});

describe('a payment_intent.payment_failed through the inbox and the Stripe gateway', () => {
  async function flow(script: Script) {
    const stripe = await scriptedStripe(script);
    const charges = new MemoryCharges();
    const events = new MemoryProcessorEvents();
    await charges.insert(
      testCharge({
        charge_id: 'ch_unit_1',
        merchant_id: 1000,
        mode: 'live',
        status: 'pending',
        processor_group: 'card',
        payment_gateway: 'card_gateway',
        processor_reference: 'pi_123',
        amount: { amount: 2_500, currency: 'USD' },
        total: { amount: 2_500, currency: 'USD' },
        fee_details: testFees('USD', 2_500, 100),
      }),
    );
    let now = new Date('2026-12-01T10:00:00Z');
    const processors = new StaticProcessorRegistry({
      timeoutMs: 2_000,
      resetTimeoutMs: 1_000,
      cardPublishableKey: 'pk',
      live: { card: gateway(stripe.settings()).adapter },
    });
    const inbox = new ProcessorEventInbox(
      {
        events,
        appliers: appliersOf({
          payment: new PaymentEventApplier({ charges, outcomes: new OutcomeService(charges, () => now), processors }),
        }),
      },
      { unmatchedAfterMs: 60_000, retryMs: 1_000, now: () => now },
    );
    const failed: ProcessorEvent = {
      kind: 'payment',
      processor: 'stripe',
      event_id: 'evt_fail_1',
      type: 'payment_intent.payment_failed',
      outcome: 'failed',
      charge_id: 'ch_unit_1',
      merchant_id: 1000,
      mode: 'live',
      processor_reference: 'pi_123',
      amount: money(2_500, 'USD'),
      failure_reason: 'card_declined',
    };
    await inbox.receive(failed);
    return {
      stripe,
      inbox,
      charge: () => charges.docs.get('ch_unit_1')!,
      outbox: () => charges.events.map((e) => e.subject),
      event: () => events.docs.get('stripe:evt_fail_1')!,
      advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    };
  }

  it('cancelled at Stripe: the charge fails with the decline code', async () => {
    const t = await flow(stripeWhere({ status: 200, json: intentIn('canceled') }));
    try {
      await t.inbox.applyDue();
      expect(t.charge()).toMatchObject({ status: 'failed', failure_reason: 'card_declined' });
      expect(t.outbox()).toEqual([SUBJECTS.paymentFailed]);
      expect(t.event().status).toBe('applied');
    } finally {
      await t.stripe.close();
    }
  });

  it('Stripe refuses the cancel because the customer paid after all: the charge succeeds, never fails', async () => {
    const t = await flow(stripeWhere(unexpectedState, 'succeeded'));
    try {
      await t.inbox.applyDue();
      expect(t.charge().status).toBe('succeeded');
      expect(t.outbox()).toEqual([SUBJECTS.paymentSucceeded]);
      expect(t.event().status).toBe('superseded');
    } finally {
      await t.stripe.close();
    }
  });

  it('Stripe unavailable: the event stays pending and the charge untouched until a sweep can cancel', async () => {
    let down = true;
    const t = await flow((req, body) =>
      down ? stripeError(503, 'api_error') : stripeWhere({ status: 200, json: intentIn('canceled') })(req, body),
    );
    try {
      await t.inbox.applyDue();
      expect(t.event()).toMatchObject({ status: 'received', attempts: 1 });
      expect(t.charge().status).toBe('pending');
      expect(t.outbox()).toEqual([]);
      down = false;
      t.advance(1_000);
      await t.inbox.applyDue();
      expect(t.charge().status).toBe('failed');
      const keys = t.stripe.seen.map((r) => r.headers['idempotency-key']);
      expect(keys).toEqual([cancelKey('ch_unit_1', 'evt_fail_1'), cancelKey('ch_unit_1', 'evt_fail_1')]);
    } finally {
      await t.stripe.close();
    }
  });
});
