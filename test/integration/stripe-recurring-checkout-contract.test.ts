import { money } from '@ppay/kernel';
import { stripeClient } from '@ppay/stripe-support';
import type { CheckoutIntent } from '../../services/payments/src/processors/ports';
import type { StripeSettings } from '../../services/payments/src/processors/stripe/stripe-config.adapter';
import { StripeCardGateway } from '../../services/payments/src/processors/stripe/stripe-payments.adapter';
import { startStripeMock, stripeMockSettings, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * Contract tests of the Checkout Sessions that keep a card (subscriptions, installments, free trials)
 * and of reading a completed one back, against stripe-mock (docs/decisions.md, S40–S41): Stripe's API
 * description accepts the parameters and the expansions, and its answer shapes map to our card.
 */
const KEYS = testStripeKeys();
let mock: StripeMock;
let settings: StripeSettings;
/** Fields laid over stripe-mock's fixture when a Checkout Session is read back. */
let readBackPatch: Record<string, unknown> | undefined;

beforeAll(async () => {
  mock = await startStripeMock({
    patch: (r) => (r.method === 'GET' && r.path.startsWith('/v1/checkout/sessions/') ? readBackPatch : undefined),
  });
  settings = stripeMockSettings(mock, KEYS);
});
afterAll(() => mock?.stop());
beforeEach(() => (readBackPatch = undefined));

function gateway() {
  const outcomes: string[] = [];
  const adapter = new StripeCardGateway(stripeClient(settings), settings, {
    call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
    authFailure: () => outcomes.push('auth'),
  });
  return { adapter, outcomes };
}

const session = (id: string, purpose: CheckoutIntent['purpose']): CheckoutIntent => ({
  session_id: id,
  merchant_id: 4242,
  mode: 'live',
  amount: money(1999, 'USD'),
  customer_email: 'buyer@example.com',
  description: 'Bread club',
  success_url: `https://merchant.example/thanks?session_id=${id}`,
  cancel_url: `https://merchant.example/cart?session_id=${id}`,
  expires_at: new Date(Date.now() + 45 * 60_000),
  purpose,
});

describe('Checkout Sessions that keep the card, against stripe-mock', () => {
  it('a paid session that keeps the card: Checkout makes the Customer, the PaymentIntent is set up off-session', async () => {
    const { adapter, outcomes } = gateway();
    await adapter.initialiseCheckout(session('cs_contract_sub', 'pay_and_save'));
    const create = mock.requests.pop()!;
    expect(`${create.method} ${create.path} ${create.status}`).toBe('POST /v1/checkout/sessions 200');
    expect(create.form).toMatchObject({
      mode: 'payment',
      customer_creation: 'always',
      'payment_intent_data[setup_future_usage]': 'off_session',
      'payment_intent_data[metadata][session_id]': 'cs_contract_sub',
      'line_items[0][price_data][unit_amount]': '1999',
    });
    expect(outcomes).toEqual(['checkout.sessions.create:ok']);
  });

  it('a free trial is a setup session: no line, no PaymentIntent, the SetupIntent carries our ids', async () => {
    const { adapter } = gateway();
    await adapter.initialiseCheckout(session('cs_contract_trial', 'save'));
    const create = mock.requests.pop()!;
    expect(create.status).toBe(200);
    expect(create.form).toMatchObject({
      mode: 'setup',
      currency: 'usd',
      customer_creation: 'always',
      'setup_intent_data[metadata][session_id]': 'cs_contract_trial',
      'metadata[session_id]': 'cs_contract_trial',
    });
    expect(Object.keys(create.form).some((k) => k.startsWith('line_items') || k.startsWith('payment_intent'))).toBe(
      false,
    );
  });

  it('reads a paid session back with its PaymentIntent and card expanded; a card not kept is no saved card', async () => {
    const { adapter, outcomes } = gateway();
    const paid = await adapter.checkoutPayment('cs_test_contract_paid');
    const read = mock.requests.pop()!;
    expect(read.method).toBe('GET');
    expect(decodeURIComponent(read.path)).toBe(
      '/v1/checkout/sessions/cs_test_contract_paid?expand[0]=payment_intent.payment_method&expand[1]=setup_intent.payment_method',
    );
    expect(read.status).toBe(200);
    expect(paid.payment_reference).toMatch(/^pi_/);
    expect(paid.card).toEqual({ brand: 'visa', last4: '4242' });
    // stripe-mock's PaymentIntent was not set up for off-session use.
    expect(paid.saved_card).toBeNull();
    expect(outcomes).toEqual(['checkout.sessions.retrieve:ok']);
  });

  it('a setup session read back: the SetupIntent’s card, kept on the Customer Checkout made', async () => {
    const { adapter } = gateway();
    readBackPatch = { mode: 'setup', customer: 'cus_contract_1' };
    const kept = await adapter.checkoutPayment('cs_test_contract_trial');
    expect(kept.payment_reference).toBeNull();
    expect(kept.saved_card).toMatchObject({
      processor: 'stripe',
      customer_reference: 'cus_contract_1',
      method_reference: expect.stringMatching(/^pm_/),
      brand: 'visa',
      last4: '4242',
    });
    // Kept without a Customer cannot be charged again: nothing is made of it.
    readBackPatch = { mode: 'setup', customer: null };
    await expect(adapter.checkoutPayment('cs_test_contract_lost')).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
