import './instrument';
import { ensureIndexes, runService } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { Catalogue } from './catalogue/catalogue';
import { catalogueHandlers } from './catalogue/catalogue.handlers';
import { catalogueModels, MongoCatalogueRepository } from './catalogue/catalogue.repo';
import { seedCatalogue, type SeedFile } from './catalogue/seed';
import { fxPricingConfig } from './config';
import bundledTable from './data/rates-2026-11-01.json';
import { readJsonFile } from './json-file.adapter';
import { MERCHANT_DATA } from './merchant-data.repo';
import { CidrGeoLocator, NO_GEOLOCATION } from './pricing/geo';
import { PricingService } from './pricing/pricing';
import { pricingHandlers } from './pricing/pricing.handlers';
import { MongoProductRepository } from './products/product.repo';
import { ProductService } from './products/products';
import { productHandlers } from './products/products.handlers';
import { StockService } from './stock/stock';
import { stockHandlers } from './stock/stock.handlers';
import { MongoStockRepository } from './stock/stock.repo';
import { Converter } from './rates/conversion';
import { HttpRateSource } from './rates/http-rate-source.adapter';
import { BundledRateSource, parseRateTable, type RateSource } from './rates/rates';

void runService<types.fxpricing.FxPricingServiceHandlers, (typeof fxPricingConfig)['properties']>({
  name: 'fx-pricing',
  extraConfig: fxPricingConfig,
  async setup({ config, mongo, log }) {
    const { products: productModel, rules } = catalogueModels(mongo);
    await ensureIndexes([productModel, rules]);
    const catalogue = new Catalogue(new MongoCatalogueRepository(mongo, productModel, rules));
    if (config.PRODUCTS_SEED_FILE) {
      const seed = readJsonFile(config.PRODUCTS_SEED_FILE) as SeedFile;
      const seeded = await seedCatalogue(catalogue, seed, config.PRODUCTS_SEED_FILE);
      log.info({ file: config.PRODUCTS_SEED_FILE, ...seeded }, 'catalogue seeded');
    }

    const bundled = new BundledRateSource(
      config.BUNDLED_RATES_FILE
        ? parseRateTable(readJsonFile(config.BUNDLED_RATES_FILE), config.BUNDLED_RATES_FILE)
        : parseRateTable(bundledTable, 'bundled rates'),
    );
    let configured: RateSource = bundled;
    if (config.RATE_SOURCE === 'live') {
      if (!config.LIVE_RATES_URL) throw new Error('RATE_SOURCE=live needs LIVE_RATES_URL');
      configured = new HttpRateSource({
        url: config.LIVE_RATES_URL,
        apiKey: config.LIVE_RATES_API_KEY || undefined,
        ttlMs: config.RATES_TTL_MS,
        timeoutMs: config.LIVE_RATES_TIMEOUT_MS,
        maxStaleMs: config.LIVE_RATES_MAX_STALE_MS,
      });
    }
    const converter = new Converter({ bundled, configured, surchargePercent: config.FX_SURCHARGE_PERCENT });
    // Partner prices are in a currency the bundled table knows, so every product can be priced (4.4).
    const priced = new Set(bundled.currencies());
    const productRepo = new MongoProductRepository(mongo, productModel);
    const products = new ProductService(productRepo, (c) => priced.has(c));
    const stock = new StockService({ products: productRepo, stock: new MongoStockRepository(productModel) });
    const geo = config.GEOIP_FILE ? CidrGeoLocator.fromJson(readJsonFile(config.GEOIP_FILE)) : NO_GEOLOCATION;
    log.info(
      { bundled: bundled.id, live_and_internal: configured.id, surcharge_percent: converter.surchargePercent },
      'rate sources',
    );
    return {
      handlers: {
        ...catalogueHandlers(catalogue),
        ...productHandlers(products),
        ...stockHandlers(stock),
        ...pricingHandlers(new PricingService(catalogue, converter, geo)),
      },
      merchantData: { targets: MERCHANT_DATA },
    };
  },
});
