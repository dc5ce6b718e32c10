import { createLogger, type CallContext } from '@ppay/runtime';
import { Catalogue } from '../catalogue/catalogue';
import { MemoryCatalogueRepository } from '../catalogue/memory-catalogue.test-util';
import bundledTable from '../data/rates-2026-11-01.json';
import { Converter } from '../rates/conversion';
import { BundledRateSource, parseRateTable } from '../rates/rates';
import { NO_GEOLOCATION } from './geo';
import { PricingService } from './pricing';
import { pricingHandlers } from './pricing.handlers';

const bundled = new BundledRateSource(parseRateTable(bundledTable, 'bundled'));
const ctx: CallContext = {
  caller: { requestId: 'req_1', auth: 'api_key', merchantId: 7, mode: 'sandbox' },
  log: createLogger('fx-pricing-test', 'silent'),
  deadline: undefined,
};

/** The wire messages of fx-pricing: every amount a common.v1.Money, the REST flattening is the gateway's. */
describe('pricing handlers (wire shapes)', () => {
  let handlers: ReturnType<typeof pricingHandlers>;
  let productId: number;

  beforeEach(async () => {
    const catalogue = new Catalogue(new MemoryCatalogueRepository());
    const converter = new Converter({ bundled, configured: bundled, surchargePercent: '0' });
    handlers = pricingHandlers(new PricingService(catalogue, converter, NO_GEOLOCATION));
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

  it('GetProductPricing sends each price as Money (the discrimination in the base currency)', async () => {
    const res = await handlers.GetProductPricing!(
      { product_id: productId, currency: 'NGN', customer_country: '', client_ip: '' },
      ctx,
    );
    const local = { money: { amount: 2_143_898, currency: 'NGN' }, formatted: '₦21,438.98' };
    expect(res.pricing).toMatchObject({ base: { money: { amount: 1999, currency: 'USD' } }, local });
    expect(res.amount).toEqual({ product_price: local, total: local });
    expect(res.price_discrimination).toMatchObject({
      original_base_price: { amount: 1999, currency: 'USD' },
      discrimination_amount: { amount: -600, currency: 'USD' },
      adjusted_base_price: { amount: 1399, currency: 'USD' },
      discrimination_percentage: -0.3,
      discrimination_percentage_decimal: '-0.3',
    });
  });

  it('CalculatePrice converts the Money it is given; its currency is the required source currency', async () => {
    const res = await handlers.CalculatePrice!(
      { amount: { amount: 10_000, currency: 'NGN' }, target_currency: 'GHS' },
      ctx,
    );
    expect(res).toMatchObject({
      base: { money: { amount: 10_000, currency: 'NGN' } },
      local: { money: { amount: 81, currency: 'GHS' }, formatted: 'GH₵0.81' },
      rate_decimal: '0.008058990505',
    });
    for (const amount of [null, { amount: 100, currency: '' }]) {
      await expect(handlers.CalculatePrice!({ amount, target_currency: 'GHS' }, ctx)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'source_currency is required',
        param: 'source_currency',
      });
    }
    await expect(
      handlers.CalculatePrice!({ amount: { amount: 1.5, currency: 'NGN' }, target_currency: 'GHS' }, ctx),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', param: 'amount' });
  });
});
