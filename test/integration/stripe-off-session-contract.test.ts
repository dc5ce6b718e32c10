import { money } from '@ppay/kernel';
import { stripeClient } from '@ppay/stripe-support';
import type { SavedCardPayment } from '../../services/payments/src/processors/cards';
import type { StripeSettings } from '../../services/payments/src/processors/stripe/stripe-config.adapter';
import { StripeOffSessionCharger } from '../../services/payments/src/processors/stripe/stripe-off-session.adapter';
import { paymentIntentKey } from '../../services/payments/src/processors/stripe/stripe-payments.adapter';
import {
  startStripeMock,
  stripeMockSettings,
  testStripeKeys,
  type StripeAnswerPatch,
  type StripeMock,
} from '../support/stripe-mock';

/**
 * Contract tests of the off-session charge of a card saved at Stripe (docs/decisions.md S36–S37) against
 * stripe-mock: every request checked against Stripe's API description, answers in its object shapes.
 * stripe-mock keeps no state, so the look-up that finds a PaymentIntent is given one by patching the
 * list's answer; flows are unit tests (payment-methods/live-off-session.test.ts).
 */
const KEYS = testStripeKeys();
let mock: StripeMock;
let settings: StripeSettings;
/** Fields laid over stripe-mock's next answers (its fixtures know nothing of what was asked). */
let patch: StripeAnswerPatch = () => undefined;

beforeAll(async () => {
  mock = await startStripeMock({ patch: (request) => patch(request) });
  settings = stripeMockSettings(mock, KEYS);
});
afterAll(() => mock?.stop());
beforeEach(() => {
  patch = () => undefined;
  mock.requests.length = 0;
});

const CARD = {
  brand: 'visa',
  last4: '4242',
  processor: 'stripe',
  customer_reference: 'cus_contract_1',
  method_reference: 'pm_contract_1',
};
const payment = (chargeId: string, askedBefore = false): SavedCardPayment => ({
  charge_id: chargeId,
  group: 'card',
  mode: 'live',
  amount: money(1999, 'GBP'),
  merchant_id: 4242,
  created_at: new Date('2026-12-01T10:00:00Z'),
  asked_before: askedBefore,
});

function charger() {
  const outcomes: string[] = [];
  const adapter = new StripeOffSessionCharger(stripeClient(settings), {
    call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
    authFailure: () => outcomes.push('auth'),
  });
  return { adapter, outcomes };
}

/** What Stripe answers a confirmed off-session PaymentIntent that paid (stripe-mock's fixture awaits a method). */
const paid: StripeAnswerPatch = (r) =>
  r.method === 'POST' && r.path === '/v1/payment_intents'
    ? { status: 'succeeded', amount: Number(r.form.amount), currency: r.form.currency }
    : undefined;

describe('Stripe off-session charges against stripe-mock', () => {
  it('creates a confirmed off-session PaymentIntent of the saved card stripe-mock accepts, with our key and metadata', async () => {
    patch = paid;
    const { adapter, outcomes } = charger();
    const answer = await adapter.chargeSaved(payment('ch_contract_off_1'), CARD);
    expect(answer).toMatchObject({ approved: true, processor_reference: expect.stringMatching(/^pi_/) });
    const [create] = mock.requests;
    expect(`${create!.method} ${create!.path} ${create!.status}`).toBe('POST /v1/payment_intents 200');
    expect(create!.headers['idempotency-key']).toBe(paymentIntentKey('ch_contract_off_1'));
    expect(create!.headers['stripe-version']).toBe('2026-08-26.dahlia');
    expect(create!.form).toEqual({
      amount: '1999',
      currency: 'gbp',
      customer: 'cus_contract_1',
      payment_method: 'pm_contract_1',
      'payment_method_types[0]': 'card',
      off_session: 'true',
      confirm: 'true',
      'metadata[charge_id]': 'ch_contract_off_1',
      'metadata[merchant_id]': '4242',
      'metadata[mode]': 'live',
      'metadata[off_session]': 'true',
    });
    expect(mock.requests).toHaveLength(1);
    expect(outcomes).toEqual(['payment_intents.create:ok']);
    expect(mock.log()).not.toMatch(/status=4\d\d/);
  });

  it("maps stripe-mock's own PaymentIntent (awaiting a payment method) to a decline: nothing can pay it", async () => {
    // Its fixture's amount is not ours: only the status is taken from it here.
    patch = (r) => (r.method === 'POST' ? { amount: Number(r.form.amount), currency: r.form.currency } : undefined);
    const answer = await charger().adapter.chargeSaved(payment('ch_contract_off_2'), CARD);
    expect(answer).toMatchObject({ approved: false, decline_code: 'card_declined' });
  });

  it("asked before, it lists the customer's PaymentIntents since the charge as stripe-mock accepts, then creates", async () => {
    patch = paid;
    const { adapter, outcomes } = charger();
    expect(await adapter.chargeSaved(payment('ch_contract_off_3', true), CARD)).toMatchObject({ approved: true });
    const [list, create] = mock.requests;
    const created = Math.floor(Date.parse('2026-12-01T10:00:00Z') / 1000) - 600;
    expect(list).toMatchObject({
      method: 'GET',
      path: `/v1/payment_intents?customer=cus_contract_1&created[gte]=${created}&limit=100`,
      status: 200,
    });
    // stripe-mock's list holds none of ours: it is created, under the charge's own key.
    expect(`${create!.method} ${create!.path} ${create!.status}`).toBe('POST /v1/payment_intents 200');
    expect(create!.headers['idempotency-key']).toBe(paymentIntentKey('ch_contract_off_3'));
    expect(outcomes).toEqual(['payment_intents.list:ok', 'payment_intents.create:ok']);
    expect(mock.log()).not.toMatch(/status=4\d\d/);
  });

  it('asked before, a PaymentIntent of ours in the list is the answer: nothing is created', async () => {
    patch = (r) =>
      r.method === 'GET'
        ? {
            data: [
              {
                id: 'pi_contract_found',
                object: 'payment_intent',
                amount: 1999,
                currency: 'gbp',
                status: 'succeeded',
                metadata: { charge_id: 'ch_contract_off_4' },
              },
            ],
            has_more: false,
          }
        : undefined;
    const { adapter, outcomes } = charger();
    expect(await adapter.chargeSaved(payment('ch_contract_off_4', true), CARD)).toMatchObject({
      approved: true,
      processor_reference: 'pi_contract_found',
    });
    expect(mock.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['GET 200']);
    expect(outcomes).toEqual(['payment_intents.list:ok']);
  });
});
