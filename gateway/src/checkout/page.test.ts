import type { types } from '@ppay/proto';
import { renderCheckout } from './page';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/** What GetCheckout answers for a pending sandbox session whose customer pays the fee. */
const view = {
  session_id: 'cs_1',
  status: 'pending',
  mode: 'sandbox',
  merchant_id: 1000,
  business_name: 'Ada & Sons',
  product_name: 'Sourdough',
  fee_details: { base: ngn(500_000), fee: ngn(17_500), total: ngn(517_500), customer_pays_fees: true },
  amount: ngn(517_500),
  customer_pays_fees: true,
  customer_email: 'ada@example.com',
  expires_at: '2026-11-01T10:30:00.000Z',
  payments_enabled: true,
  test_cards: [],
} as unknown as types.payments.CheckoutView__Output;

const cell = (html: string, testId: string) => new RegExp(`data-testid="${testId}">([^<]*)<`).exec(html)?.[1];

describe('the hosted checkout page', () => {
  it('shows the price, the fee and the total of the session from its Money, in its currency', () => {
    const html = renderCheckout(view, { nonce: 'n' });
    expect([cell(html, 'price'), cell(html, 'fee'), cell(html, 'amount'), cell(html, 'currency')]).toEqual([
      'NGN\u00a05,000.00',
      'NGN\u00a0175.00',
      'NGN\u00a05,175.00',
      'NGN',
    ]);
    expect(html).toContain('Pay NGN\u00a05,175.00');
  });
});
