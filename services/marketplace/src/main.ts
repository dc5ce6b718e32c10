import './instrument';
import { ensureIndexes, OutboxRelay, runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { marketplaceConfig } from './config';
import { MerchantService } from './domain/merchants';
import { marketplaceHandlers } from './grpc/handlers';
import { merchantModel, MongoMerchantRepository } from './repo/merchant-repo';

void runService<types.marketplace.MarketplaceServiceHandlers, (typeof marketplaceConfig)['properties']>({
  name: 'marketplace',
  extraConfig: marketplaceConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const model = merchantModel(mongo);
    await ensureIndexes([model]);
    const relay = new OutboxRelay(model, nats, log, metrics);
    const repo = new MongoMerchantRepository(model, (id) => relay.relaySoon(id));
    const merchants = new MerchantService(repo, {
      cacheTtlMs: config.MERCHANT_CACHE_TTL_MS,
      cacheMaxEntries: config.MERCHANT_CACHE_MAX_ENTRIES,
    });
    return { handlers: marketplaceHandlers(merchants), relays: [relay] };
  },
});
