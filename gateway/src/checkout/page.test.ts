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

  it('an installment session shows every part with its date and amount before paying; part 1 is due today', () => {
    const part = (number: number, base: number, fee: number, due: string) => ({
      number,
      base: ngn(base),
      fee: ngn(fee),
      total: ngn(base + fee),
      due_at: due,
    });
    const installmentView = (status: string) =>
      ({
        ...view,
        status,
        payment_type: 'installment',
        amount: ngn(101_501),
        installments: {
          plan_id: 'ip_1',
          count: 3,
          interval: 'monthly',
          total: ngn(300_001),
          schedule: [
            part(1, 100_001, 1_500, '2026-01-31T10:00:00.000Z'),
            part(2, 100_000, 1_500, '2026-02-28T10:00:00.000Z'),
            part(3, 100_000, 1_500, '2026-03-31T10:00:00.000Z'),
          ],
        },
      }) as unknown as types.payments.CheckoutView__Output;
    const html = renderCheckout(installmentView('pending'), { nonce: 'n' });
    const all = (testId: string, page = html) =>
      [...page.matchAll(new RegExp(`data-testid="${testId}">([^<]*)<`, 'g'))].map((m) => m[1]);
    expect(all('installment-date')).toEqual(['Today', '28 Feb 2026', '31 Mar 2026']);
    expect(all('installment-amount')).toEqual(['NGN\u00a01,015.01', 'NGN\u00a01,015.00', 'NGN\u00a01,015.00']);
    expect(html).toContain('Paid in 3 monthly installments of NGN\u00a03,000.01 in total.');
    expect(html).toContain('Pay NGN\u00a01,015.01');
    // Once paid, the page dates every part, the first with its payment.
    const paid = renderCheckout(installmentView('completed'), { nonce: 'n' });
    expect(all('installment-date', paid)).toEqual(['31 Jan 2026', '28 Feb 2026', '31 Mar 2026']);
  });

  it('a physical product shows its line and asks where to ship, among the countries it ships to', () => {
    const goods = {
      variation: { variation_id: 'var_xl', name: 'XL <b>' },
      quantity: 2,
      unit_price: ngn(450_000),
      shipping_fee: ngn(150_000),
      ships_to: ['NG', 'GH'],
    };
    const html = renderCheckout({ ...view, goods } as typeof view, {
      nonce: 'n',
      shipping: { name: 'Ada "Obi"', country: 'gh' },
    });
    expect(cell(html, 'goods')).toBe('2 × NGN\u00a04,500.00 — XL &lt;b&gt;; shipping NGN\u00a01,500.00');
    expect(html).toContain('Ships to Nigeria, Ghana.');
    expect(html).toContain('name="ship_line1" maxlength="200" value="" required');
    expect(html).toContain('value="Ada &quot;Obi&quot;"');
    expect(html).toContain('<option value="GH" selected>Ghana</option>');
    expect(renderCheckout(view, { nonce: 'n' })).not.toContain('data-testid="shipping"');
  });

  it('a sold-out answer shows the message and no form', () => {
    const html = renderCheckout(view, { nonce: 'n', error: 'Sorry, this product is sold out.', soldOut: true });
    expect(html).toContain('data-testid="sold-out"');
    expect(cell(html, 'error')).toBe('Sorry, this product is sold out.');
    expect(html).not.toContain('data-testid="pay-form"');
  });
});
