import { money } from '@ppay/kernel';
import { stripeClient } from '@ppay/stripe-support';
import type { StripeSettings } from '../../services/payments/src/processors/stripe/stripe-config.adapter';
import { StripeCardGateway } from '../../services/payments/src/processors/stripe/stripe-payments.adapter';
import { checkoutSessionKey } from '../../services/payments/src/processors/stripe/stripe-checkout.adapter';
import { startStripeMock, stripeMockSettings, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * The Checkout Session of a physical product's live session against Stripe's official mock (docs/decisions.md,
 * S33): stripe-mock checks the request against Stripe's API description (line items, the shipping option,
 * the countries the address is collected in), so this proves Stripe accepts what the connector sends.
 */
const KEYS = testStripeKeys();
let mock: StripeMock;
let settings: StripeSettings;

beforeAll(async () => {
  mock = await startStripeMock();
  settings = stripeMockSettings(mock, KEYS);
});
afterAll(() => mock?.stop());

function gateway() {
  const outcomes: string[] = [];
  const adapter = new StripeCardGateway(stripeClient(settings), settings, {
    call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
    authFailure: () => outcomes.push('auth'),
  });
  return { adapter, outcomes };
}

const session = (id: string, shipsTo: string[]) => ({
  session_id: id,
  merchant_id: 4242,
  mode: 'live' as const,
  amount: money(2_756, 'USD'),
  customer_email: 'buyer@example.com',
  description: 'Linen shirt',
  goods: {
    lines: [
      { name: 'Linen shirt (XL)', unit_amount: money(1_200, 'USD'), quantity: 2 },
      { name: 'Transaction fee', unit_amount: money(106, 'USD'), quantity: 1 },
    ],
    shipping: money(250, 'USD'),
    ships_to: shipsTo,
  },
  success_url: `https://merchant.example/thanks?session_id=${id}`,
  cancel_url: `https://merchant.example/cart?session_id=${id}`,
  expires_at: new Date(Date.now() + 45 * 60_000),
  purpose: 'pay' as const,
});

describe('Stripe Checkout Session of a physical product, against stripe-mock', () => {
  it('creates a goods Checkout Session stripe-mock accepts: its lines, one shipping option, the countries it ships to', async () => {
    const { adapter, outcomes } = gateway();
    // Cuba cannot be offered by Stripe's page: the other countries are.
    const answer = await adapter.initialiseCheckout(session('cs_contract_goods', ['NG', 'CU', 'GH']));
    expect(answer.processor_reference).toMatch(/^cs_/);
    expect(answer.payment_url).toMatch(/^https:\/\//);
    const create = mock.requests.pop()!;
    expect(`${create.method} ${create.path} ${create.status}`).toBe('POST /v1/checkout/sessions 200');
    expect(create.headers['idempotency-key']).toBe(checkoutSessionKey('cs_contract_goods'));
    // What Stripe charges is the lines plus the shipping option: 2 × 1200 + 106 + 250, the session's amount.
    expect(create.form).toEqual({
      mode: 'payment',
      'payment_method_types[0]': 'card',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '1200',
      'line_items[0][price_data][product_data][name]': 'Linen shirt (XL)',
      'line_items[0][quantity]': '2',
      'line_items[1][price_data][currency]': 'usd',
      'line_items[1][price_data][unit_amount]': '106',
      'line_items[1][price_data][product_data][name]': 'Transaction fee',
      'line_items[1][quantity]': '1',
      'shipping_address_collection[allowed_countries][0]': 'NG',
      'shipping_address_collection[allowed_countries][1]': 'GH',
      'shipping_options[0][shipping_rate_data][type]': 'fixed_amount',
      'shipping_options[0][shipping_rate_data][display_name]': 'Shipping',
      'shipping_options[0][shipping_rate_data][fixed_amount][amount]': '250',
      'shipping_options[0][shipping_rate_data][fixed_amount][currency]': 'usd',
      customer_email: 'buyer@example.com',
      success_url: 'https://merchant.example/thanks?session_id=cs_contract_goods',
      cancel_url: 'https://merchant.example/cart?session_id=cs_contract_goods',
      expires_at: expect.stringMatching(/^\d+$/),
      client_reference_id: 'cs_contract_goods',
      'metadata[session_id]': 'cs_contract_goods',
      'metadata[merchant_id]': '4242',
      'metadata[mode]': 'live',
      'payment_intent_data[metadata][session_id]': 'cs_contract_goods',
      'payment_intent_data[metadata][merchant_id]': '4242',
      'payment_intent_data[metadata][mode]': 'live',
    });
    expect(outcomes).toEqual(['checkout.sessions.create:ok']);
  });

  it('a product shipping only where Stripe cannot collect an address is refused before Stripe is asked', async () => {
    const { adapter, outcomes } = gateway();
    const before = mock.requests.length;
    await expect(adapter.initialiseCheckout(session('cs_contract_cuba', ['CU']))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'product_id',
    });
    expect([mock.requests.length, outcomes]).toEqual([before, []]);
  });
});
