import './instrument';
import {
  ensureIndexes,
  merchantDeletionConsumer,
  MerchantTombstones,
  runService,
  tombstoneSweepJob,
} from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { fxPricingConfig } from './config';
import bundledTable from './data/rates-2026-11-01.json';
import { Catalogue } from './domain/catalogue';
import { Converter } from './domain/conversion';
import { CidrGeoLocator, NO_GEOLOCATION } from './domain/geo';
import { PricingService } from './domain/pricing';
import { BundledRateSource, HttpRateSource, parseRateTable, type RateSource } from './domain/rates';
import { fxPricingHandlers } from './grpc/handlers';
import { catalogueModels, MongoCatalogueRepository } from './repo/catalogue-repo';
import { MERCHANT_DATA } from './repo/merchant-data';

void runService<types.fxpricing.FxPricingServiceHandlers, (typeof fxPricingConfig)['properties']>({
  name: 'fx-pricing',
  extraConfig: fxPricingConfig,
  async setup({ config, mongo, nats, log }) {
    const { products, rules } = catalogueModels(mongo);
    await ensureIndexes([products, rules]);
    const catalogue = new Catalogue(new MongoCatalogueRepository(mongo, products, rules));
    if (config.PRODUCTS_SEED_FILE) {
      const seeded = await catalogue.seed(config.PRODUCTS_SEED_FILE);
      log.info({ file: config.PRODUCTS_SEED_FILE, ...seeded }, 'catalogue seeded');
    }

    const bundled = config.BUNDLED_RATES_FILE
      ? BundledRateSource.fromFile(config.BUNDLED_RATES_FILE)
      : new BundledRateSource(parseRateTable(bundledTable, 'bundled rates'));
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
    const geo = config.GEOIP_FILE ? CidrGeoLocator.fromFile(config.GEOIP_FILE) : NO_GEOLOCATION;
    log.info(
      { bundled: bundled.id, live_and_internal: configured.id, surcharge_percent: converter.surchargePercent },
      'rate sources',
    );
    const tombstones = new MerchantTombstones(mongo);
    return {
      handlers: fxPricingHandlers(catalogue, new PricingService(catalogue, converter, geo)),
      jobs: [tombstoneSweepJob(mongo, MERCHANT_DATA)],
      consumers: [
        merchantDeletionConsumer({ service: 'fx-pricing', conn: mongo, nats, targets: MERCHANT_DATA, tombstones, log }),
      ],
    };
  },
});
