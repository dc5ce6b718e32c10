import { SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (url: string) => `/api/v1/partner${url}`;
const headers = { 'x-api-key': SANDBOX_KEY };

/** fx-pricing's FormattedMoney (the wire) and the `{amount, currency, formatted}` partners see (REST). */
const wire = (amount: number, currency: string, formatted: string) => ({ money: { amount, currency }, formatted });
const rest = (amount: number, currency: string, formatted: string) => ({ amount, currency, formatted });
const usd = (amount: number) => ({ amount, currency: 'USD' });

/** What the spec shows of a conversion; the wire also carries the exact decimals, which REST leaves out. */
const shownConversion = {
  rate: 1555.43675,
  source: 'bundled:2026-11-01',
  applied: true,
  surcharge_percent: 1.5,
  rate_date: '2026-11-01',
};
const conversion = { ...shownConversion, rate_decimal: '1555.43675', mid_rate_decimal: '1532.45' };
/** Fields without money pass through as they are. */
const unchanged = {
  product: { id: 7, name: 'Video course', type: 'digital' },
  customer: {
    location: { country: 'Nigeria', country_code: 'NG', detected_from: 'currency' },
    currency: { code: 'NGN', detected: false, override: true },
  },
  payment: { methods: ['card', 'bank_transfer', 'ussd'], currency: 'NGN' },
};
/** A gateway whose fx-pricing answers GetProductPricing with `priced` beside the unchanged fields. */
const pricedBy = (priced: object) =>
  testGateway({ fxPricing: { GetProductPricing: () => ({ ...unchanged, ...priced }) } });

describe('pricing routes over a fake fx-pricing service', () => {
  it('GET /products/{id}/pricing answers the spec 4.4 amounts flat, read from the wire Money', async () => {
    const local = wire(2_176_056, 'NGN', '₦21,760.56');
    const t = await pricedBy({
      pricing: { base: wire(1999, 'USD', 'US$19.99'), local, conversion },
      price_discrimination: {
        original_base_price: usd(1999),
        discrimination_amount: usd(-600),
        adjusted_base_price: usd(1399),
        discrimination_percentage: -0.3,
        discrimination_percentage_decimal: '-0.3',
        country_triggered: 'NG',
      },
      amount: { product_price: local, total: local },
    });
    const res = await t.app.inject({ method: 'GET', url: partner('/products/7/pricing?currency=ngn'), headers });
    expect(res.statusCode).toBe(200);
    const shown = rest(2_176_056, 'NGN', '₦21,760.56');
    const rule = { discrimination_percentage: -0.3, country_triggered: 'NG' };
    expect(res.json()).toEqual({
      success: true,
      data: {
        ...unchanged,
        pricing: { base: rest(1999, 'USD', 'US$19.99'), local: shown, conversion: shownConversion },
        price_discrimination: {
          original_base_price: 1999,
          discrimination_amount: -600,
          adjusted_base_price: 1399,
          ...rule,
        },
        amount: { product_price: shown, total: shown },
      },
    });
    expect(t.calls[0]!.request).toMatchObject({ product_id: 7, currency: 'NGN' });
  });

  it('an absent price_discrimination is the spec’s null', async () => {
    const same = wire(1999, 'USD', '$19.99');
    const t = await pricedBy({
      pricing: { base: same, local: same, conversion },
      amount: { product_price: same, total: same },
    });
    const res = await t.app.inject({ method: 'GET', url: partner('/products/7/pricing'), headers });
    expect(res.json().data).toMatchObject({
      price_discrimination: null,
      amount: { total: rest(1999, 'USD', '$19.99') },
    });
  });

  it('GET /pricing/calculate sends the amount as Money in the source currency and answers it flat', async () => {
    const t = await testGateway({
      marketplace: { GetAccount: () => ({ merchant_id: 1000, baseline_currency: 'USD' }) },
      fxPricing: {
        CalculatePrice: () => ({
          base: wire(1999, 'USD', 'US$19.99'),
          local: wire(3_109_318, 'NGN', '₦31,093.18'),
          ...conversion,
        }),
      },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: partner('/pricing/calculate?amount=1999&target_currency=ngn'),
      headers,
    });
    expect(res.json()).toEqual({
      success: true,
      data: {
        base: rest(1999, 'USD', 'US$19.99'),
        local: rest(3_109_318, 'NGN', '₦31,093.18'),
        ...shownConversion,
        rate_decimal: '1555.43675',
      },
    });
    const calculate = t.calls.find((c) => c.method === 'CalculatePrice');
    expect(calculate?.request).toEqual({ amount: usd(1999), target_currency: 'NGN' });
  });
});
