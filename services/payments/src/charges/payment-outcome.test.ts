import { convertedCharge as charge, testFees } from './charge.test-util';
import { multicurrencyBreakdown } from './payment-outcome';

describe('MulticurrencyBreakdown (spec 6.5)', () => {
  it('restates the fee in the merchant currency at the charge ratio and nets it out', () => {
    expect(multicurrencyBreakdown(charge())).toEqual({
      customer_paid: { amount: 1_543_210, currency: 'NGN' },
      merchant_gross: { amount: 1_000, currency: 'USD' },
      merchant_net: { amount: 979, currency: 'USD' }, // fee 33,148 kobo ≈ 21.48 cents → 21
      fees: {
        platform_fee: { amount: 21, currency: 'USD' },
        gateway_fee: { amount: 0, currency: 'USD' },
        total: { amount: 21, currency: 'USD' },
      },
      conversion: {
        from_currency: 'USD',
        to_currency: 'NGN',
        rate: 1543.21,
        rate_decimal: '1543.21',
        surcharge_percent: 0,
      },
    });
  });

  it('omits conversion and keeps customer_paid = merchant_gross when currencies match', () => {
    const same = charge({
      amount: { amount: 500_000, currency: 'NGN' },
      total: { amount: 500_000, currency: 'NGN' },
      conversion: null,
      fee_details: testFees('NGN', 500_000, 17_500),
    });
    const b = multicurrencyBreakdown(same);
    expect(b.conversion).toBeUndefined();
    expect(b.customer_paid).toEqual(b.merchant_gross);
    expect(b.merchant_net.amount).toBe(482_500);
  });
});
