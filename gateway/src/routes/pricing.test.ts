import { SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };

/** fx-pricing's FormattedMoney: the Money and its display string. */
const shown = (amount: number, currency: string, formatted: string) => ({ money: { amount, currency }, formatted });
const conversion = {
  rate: 1555.43675,
  rate_decimal: '1555.43675',
  mid_rate_decimal: '1532.45',
  source: 'bundled:2026-11-01',
  surcharge_percent: 1.5,
  rate_date: '2026-11-01',
  applied: true,
};
const local = shown(2_176_056, 'NGN', '₦21,760.56');
const usd = (amount: number) => ({ amount, currency: 'USD' });

describe('pricing routes over a fake fx-pricing service', () => {
  it('GET /products/{id}/pricing answers the spec 4.4 amounts flat, read from the wire Money', async () => {
    const t = await testGateway({
      fxPricing: {
        GetProductPricing: () => ({
          product: { id: 7, name: 'Video course', type: 'digital' },
          pricing: { base: shown(1999, 'USD', 'US$19.99'), local, conversion },
          price_discrimination: {
            original_base_price: usd(1999),
            discrimination_amount: usd(-600),
            adjusted_base_price: usd(1399),
            discrimination_percentage: -0.3,
            discrimination_percentage_decimal: '-0.3',
            country_triggered: 'NG',
          },
          amount: { product_price: local, total: local },
          customer: {
            location: { country: 'Nigeria', country_code: 'NG', detected_from: 'currency' },
            currency: { code: 'NGN', detected: false, override: true },
          },
          payment: { methods: ['card', 'bank_transfer', 'ussd'], currency: 'NGN' },
        }),
      },
    });
    const res = await t.app.inject({ method: 'GET', url: partner('/products/7/pricing?currency=ngn'), headers });
    expect(res.statusCode).toBe(200);
    const flat = { amount: 2_176_056, currency: 'NGN', formatted: '₦21,760.56' };
    expect(res.json()).toEqual({
      success: true,
      data: {
        product: { id: 7, name: 'Video course', type: 'digital' },
        pricing: {
          base: { amount: 1999, currency: 'USD', formatted: 'US$19.99' },
          local: flat,
          conversion: {
            rate: 1555.43675,
            source: 'bundled:2026-11-01',
            applied: true,
            surcharge_percent: 1.5,
            rate_date: '2026-11-01',
          },
        },
        price_discrimination: {
          original_base_price: 1999,
          discrimination_amount: -600,
          adjusted_base_price: 1399,
          discrimination_percentage: -0.3,
          country_triggered: 'NG',
        },
        amount: { product_price: flat, total: flat },
        customer: {
          location: { country: 'Nigeria', country_code: 'NG', detected_from: 'currency' },
          currency: { code: 'NGN', detected: false, override: true },
        },
        payment: { methods: ['card', 'bank_transfer', 'ussd'], currency: 'NGN' },
      },
    });
    expect(t.calls[0]!.request).toMatchObject({ product_id: 7, currency: 'NGN' });
  });

  it('an absent price_discrimination is the spec’s null', async () => {
    const t = await testGateway({
      fxPricing: {
        GetProductPricing: () => ({
          product: { id: 7, name: 'x', type: 'digital' },
          pricing: { base: shown(1999, 'USD', '$19.99'), local: shown(1999, 'USD', '$19.99'), conversion },
          amount: { product_price: shown(1999, 'USD', '$19.99'), total: shown(1999, 'USD', '$19.99') },
          customer: {
            location: { country: 'United States', country_code: 'US', detected_from: 'default' },
            currency: { code: 'USD', detected: false, override: false },
          },
          payment: { methods: ['card'], currency: 'USD' },
        }),
      },
    });
    const res = await t.app.inject({ method: 'GET', url: partner('/products/7/pricing'), headers });
    expect(res.json().data).toMatchObject({
      price_discrimination: null,
      amount: { total: { amount: 1999, currency: 'USD', formatted: '$19.99' } },
    });
  });

  it('GET /pricing/calculate sends the amount as Money in the source currency and answers it flat', async () => {
    const t = await testGateway({
      marketplace: { GetAccount: () => ({ merchant_id: 1000, baseline_currency: 'USD' }) },
      fxPricing: { CalculatePrice: () => ({ base: shown(1999, 'USD', 'US$19.99'), local, ...conversion }) },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: partner('/pricing/calculate?amount=1999&target_currency=ngn'),
      headers,
    });
    expect(res.json()).toEqual({
      success: true,
      data: {
        base: { amount: 1999, currency: 'USD', formatted: 'US$19.99' },
        local: { amount: 2_176_056, currency: 'NGN', formatted: '₦21,760.56' },
        rate: 1555.43675,
        rate_decimal: '1555.43675',
        source: 'bundled:2026-11-01',
        surcharge_percent: 1.5,
        rate_date: '2026-11-01',
        applied: true,
      },
    });
    const calculate = t.calls.find((c) => c.method === 'CalculatePrice');
    expect(calculate?.request).toEqual({ amount: { amount: 1999, currency: 'USD' }, target_currency: 'NGN' });
  });
});
