import { createLogger, type CallContext } from '@ppay/runtime';
import { Catalogue } from '../catalogue/catalogue';
import { MemoryCatalogueRepository } from '../catalogue/memory-catalogue.test-util';
import bundledTable from '../data/rates-2026-11-01.json';
import { Converter } from '../rates/conversion';
import { BundledRateSource, parseRateTable } from '../rates/rates';
import { CidrGeoLocator, NO_GEOLOCATION } from './geo';
import { displayLocale, paymentMethodsFor } from './locale';
import { applyRule, detectCustomer, PricingService } from './pricing';
import { pricingHandlers } from './pricing.handlers';

const bundled = new BundledRateSource(parseRateTable(bundledTable, 'bundled'));
const geo = new CidrGeoLocator({ '41.58.0.0/16': 'NG', '102.176.0.0/12': 'GH', '102.176.5.0/24': 'KE' });

describe('country and currency detection (spec 4.4)', () => {
  it('customer_country wins and picks its currency', () => {
    expect(detectCustomer({ customer_country: 'gh' }, 'USD', geo)).toEqual({
      country_code: 'GH',
      detected_from: 'query',
      currency: 'GHS',
      currency_detected: true,
      currency_override: false,
    });
  });
  it('an unambiguous currency gives its country (NGN → NG); the currency is an override', () => {
    expect(detectCustomer({ currency: 'ngn' }, 'USD', geo)).toEqual({
      country_code: 'NG',
      detected_from: 'currency',
      currency: 'NGN',
      currency_detected: false,
      currency_override: true,
    });
  });
  it('an ambiguous currency needs the country: customer_country overrides, else IP, else the issuer country', () => {
    expect(detectCustomer({ currency: 'USD', customer_country: 'EC' }, 'NGN', geo)).toMatchObject({
      country_code: 'EC',
      detected_from: 'query',
      currency: 'USD',
    });
    expect(detectCustomer({ currency: 'EUR', client_ip: '41.58.1.2' }, 'NGN', geo)).toMatchObject({
      country_code: 'NG',
      detected_from: 'ip',
      currency: 'EUR',
    });
    expect(detectCustomer({ currency: 'XOF' }, 'NGN', NO_GEOLOCATION)).toMatchObject({
      country_code: 'SN',
      detected_from: 'default',
      currency: 'XOF',
    });
  });
  it('nothing given: IP geolocation, else the base currency and its issuer country (documented fallback)', () => {
    expect(detectCustomer({ client_ip: '::ffff:102.176.5.9' }, 'USD', geo)).toMatchObject({
      country_code: 'KE', // longest prefix
      detected_from: 'ip',
      currency: 'KES',
      currency_detected: true,
    });
    expect(detectCustomer({ client_ip: '127.0.0.1' }, 'USD', geo)).toEqual({
      country_code: 'US',
      detected_from: 'default',
      currency: 'USD',
      currency_detected: false,
      currency_override: false,
    });
    // A country we cannot price in keeps the base currency.
    expect(detectCustomer({ customer_country: 'PE' }, 'NGN', geo)).toMatchObject({
      currency: 'NGN',
      currency_detected: false,
    });
  });
  it('rejects unknown countries and currencies', () => {
    expect(() => detectCustomer({ customer_country: 'ZZ' }, 'USD', geo)).toThrow(/customer_country/);
    expect(() => detectCustomer({ currency: 'ABC' }, 'USD', geo)).toThrow('Unable to convert from USD to ABC');
  });
});

describe('price rules', () => {
  const rule = (percentage: string) => ({
    merchant_id: 1,
    product_id: 0,
    country: 'NG',
    percentage,
    updated_at: new Date(),
  });
  it('adjusts the base price before conversion, rounding the adjustment half away from zero', () => {
    expect(applyRule({ amount: 1999, currency: 'USD' }, rule('-0.3')).discrimination).toEqual({
      original_base_price: { amount: 1999, currency: 'USD' },
      discrimination_amount: { amount: -600, currency: 'USD' }, // −599.7
      adjusted_base_price: { amount: 1399, currency: 'USD' },
      discrimination_percentage: '-0.3',
      country_triggered: 'NG',
    });
    expect(applyRule({ amount: 1001, currency: 'USD' }, rule('0.15')).adjusted).toEqual({
      amount: 1151,
      currency: 'USD',
    }); // 150.15
    expect(applyRule({ amount: 10, currency: 'USD' }, rule('0.15')).adjusted.amount).toBe(12); // 1.5 → 2
    expect(applyRule({ amount: 10, currency: 'USD' }, rule('-0.15')).adjusted.amount).toBe(8); // −1.5 → −2
    expect(applyRule({ amount: 999, currency: 'JPY' }, rule('0.1')).adjusted.amount).toBe(1099); // 99.9 → 100
  });
});

describe('PricingService', () => {
  let repo: MemoryCatalogueRepository;
  let catalogue: Catalogue;
  let pricing: PricingService;
  let productId: number;

  beforeEach(async () => {
    repo = new MemoryCatalogueRepository();
    catalogue = new Catalogue(repo);
    pricing = new PricingService(
      catalogue,
      new Converter({ bundled, configured: bundled, surchargePercent: '0' }),
      geo,
    );
    productId = (
      await catalogue.upsertProduct({
        merchant_id: 7,
        name: 'Course',
        type: 'digital',
        base_price: { amount: 1999, currency: 'USD' },
      })
    ).id;
    await catalogue.upsertRule({ merchant_id: 7, country: 'NG', percentage: '-0.30' });
  });

  it('prices in the customer currency with the discrimination applied before conversion', async () => {
    const r = await pricing.productPricing(7, 'sandbox', productId, { currency: 'NGN' });
    // 13.99 USD × 1532.45 = 21438.9755 NGN → 2,143,898 kobo
    expect(r.local).toEqual({ money: { amount: 2_143_898, currency: 'NGN' }, formatted: '₦21,438.98' });
    expect(r.base).toEqual({ money: { amount: 1999, currency: 'USD' }, formatted: 'US$19.99' });
    expect(r.price_discrimination).toMatchObject({
      adjusted_base_price: { amount: 1399, currency: 'USD' },
      discrimination_amount: { amount: -600, currency: 'USD' },
      country_triggered: 'NG',
    });
    expect(r.conversion).toMatchObject({ rate: '1532.45', source: 'bundled:2026-11-01', applied: true });
    expect(r.product_price).toEqual(r.local);
    expect(r.total).toEqual(r.local);
    expect(r.location).toEqual({ country: 'Nigeria', country_code: 'NG', detected_from: 'currency' });
    expect(r.currency).toEqual({ code: 'NGN', detected: false, override: true });
    expect(r.payment).toEqual({ methods: ['card', 'bank_transfer', 'ussd'], currency: 'NGN' });
  });

  it('a product rule beats the merchant-wide rule; no rule → null; a guessed country triggers none', async () => {
    await catalogue.upsertRule({ merchant_id: 7, product_id: productId, country: 'NG', percentage: '0.1' });
    expect(
      (await pricing.productPricing(7, 'sandbox', productId, { customer_country: 'NG' })).price_discrimination,
    ).toMatchObject({
      discrimination_percentage: '0.1',
      adjusted_base_price: { amount: 2199, currency: 'USD' },
    });
    const gh = await pricing.productPricing(7, 'sandbox', productId, { customer_country: 'GH' });
    expect(gh.price_discrimination).toBeNull();
    expect(gh.payment).toEqual({ methods: ['card', 'mobile_money'], currency: 'GHS' });
    await catalogue.upsertRule({ merchant_id: 7, country: 'US', percentage: '0.5' });
    const def = await pricing.productPricing(7, 'sandbox', productId, {});
    expect(def.location.detected_from).toBe('default');
    expect(def.price_discrimination).toBeNull();
    expect(def.conversion).toMatchObject({ rate: '1', source: 'identity', applied: false });
    expect(def.local).toEqual({ money: { amount: 1999, currency: 'USD' }, formatted: '$19.99' });
  });

  it('whole-unit currencies: JPY shown and charged in whole yen; an unchargeable currency pays in the base currency', async () => {
    const r = await pricing.productPricing(7, 'sandbox', productId, { customer_country: 'JP' });
    expect(r.local).toEqual({ money: { amount: 3045, currency: 'JPY' }, formatted: '¥3,045' }); // 19.99 × 152.35 = 3045.48
    expect(r.payment).toEqual({ methods: ['card'], currency: 'USD' });
  });

  it("scopes products by merchant: another merchant's product is PRODUCT_NOT_FOUND", async () => {
    await expect(pricing.productPricing(8, 'sandbox', productId, {})).rejects.toMatchObject({
      code: 'PRODUCT_NOT_FOUND',
    });
    await expect(pricing.productPricing(7, 'sandbox', 999, {})).rejects.toMatchObject({ code: 'PRODUCT_NOT_FOUND' });
    await expect(
      catalogue.upsertProduct({
        id: productId,
        merchant_id: 8,
        name: 'x',
        type: 'digital',
        base_price: { amount: 1, currency: 'USD' },
      }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });

  it("prices only the key's mode's products (and seeded ones), and no archived product", async () => {
    expect((await pricing.productPricing(7, 'live', productId, {})).product.id).toBe(productId); // seeded
    const stored = repo.products.get(productId)!;
    stored.mode = 'live';
    await expect(pricing.productPricing(7, 'sandbox', productId, {})).rejects.toMatchObject({
      code: 'PRODUCT_NOT_FOUND',
      param: 'product_id',
    });
    expect((await pricing.productPricing(7, 'live', productId, {})).product.id).toBe(productId);
    stored.active = false; // inactive: not on new checkouts, still priced
    expect((await pricing.productPricing(7, 'live', productId, {})).product.id).toBe(productId);
    stored.archived_at = new Date();
    await expect(pricing.productPricing(7, 'live', productId, {})).rejects.toMatchObject({
      code: 'PRODUCT_ARCHIVED',
      param: 'product_id',
    });
    await expect(pricing.productPricing(7, 'sandbox', productId, {})).rejects.toMatchObject({
      code: 'PRODUCT_NOT_FOUND',
    });
  });

  it('unsupported override currency is a 400 naming the pair and the param', async () => {
    await expect(pricing.productPricing(7, 'sandbox', productId, { currency: 'PEN' })).rejects.toMatchObject({
      code: 'UNSUPPORTED_CURRENCY',
      message: 'Unable to convert from USD to PEN',
      param: 'currency',
    });
  });

  it('calculate converts amount from source to target with rate and source', async () => {
    const r = await pricing.calculate('sandbox', 10_000, 'NGN', 'GHS');
    // 100 NGN × (12.35 / 1532.45 = 0.0080589905053…) = 0.8059 GHS → 81 pesewas
    // Formatted for the target's country (en-GH): local symbol for GHS, ISO code for NGN.
    expect(r.local).toEqual({ money: { amount: 81, currency: 'GHS' }, formatted: 'GH₵0.81' });
    expect(r.base).toEqual({ money: { amount: 10_000, currency: 'NGN' }, formatted: 'NGN\u00a0100.00' });
    expect(r.conversion.rate).toBe('0.008058990505');
    await expect(pricing.calculate('sandbox', 100, 'NGN', 'XYZ')).rejects.toMatchObject({ param: 'target_currency' });
  });

  describe('handlers: every amount on the wire is a common.v1.Money', () => {
    const ctx: CallContext = {
      caller: { requestId: 'req_1', auth: 'api_key', merchantId: 7, mode: 'sandbox' },
      log: createLogger('fx-pricing-test', 'silent'),
      deadline: undefined,
    };
    const usd = (amount: number) => ({ amount, currency: 'USD' });

    it('GetProductPricing: FormattedMoney {money, formatted}; the discrimination in the base currency', async () => {
      const req = { product_id: productId, currency: 'NGN', customer_country: '', client_ip: '' };
      const res = await pricingHandlers(pricing).GetProductPricing!(req, ctx);
      const local = { money: { amount: 2_143_898, currency: 'NGN' }, formatted: '₦21,438.98' };
      expect(res.pricing).toMatchObject({ base: { money: usd(1999), formatted: 'US$19.99' }, local });
      expect(res.amount).toEqual({ product_price: local, total: local });
      expect(res.price_discrimination).toMatchObject({
        original_base_price: usd(1999),
        discrimination_amount: usd(-600),
        adjusted_base_price: usd(1399),
        discrimination_percentage_decimal: '-0.3',
      });
    });

    it("CalculatePrice: the amount's currency is the source currency, required", async () => {
      const calculate = pricingHandlers(pricing).CalculatePrice!;
      const res = await calculate({ amount: { amount: 10_000, currency: 'NGN' }, target_currency: 'GHS' }, ctx);
      expect([res.base?.money, res.local?.money]).toEqual([
        { amount: 10_000, currency: 'NGN' },
        { amount: 81, currency: 'GHS' },
      ]);
      for (const amount of [null, { amount: 100, currency: '' }]) {
        await expect(calculate({ amount, target_currency: 'GHS' }, ctx)).rejects.toMatchObject({
          code: 'VALIDATION_FAILED',
          message: 'source_currency is required',
          param: 'source_currency',
        });
      }
      await expect(
        calculate({ amount: { amount: 1.5, currency: 'NGN' }, target_currency: 'GHS' }, ctx),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', param: 'amount' });
    });
  });
});

describe('display and payment methods', () => {
  it('formats with English and the customer country conventions, en-US otherwise', () => {
    expect(displayLocale('NG')).toBe('en-NG');
    expect(displayLocale(undefined)).toBe('en-US');
    expect(paymentMethodsFor('XOF')).toEqual(['card', 'mobile_money']);
    expect(paymentMethodsFor('EUR')).toEqual(['card']);
    expect(paymentMethodsFor('JPY')).toEqual([]);
  });
});
