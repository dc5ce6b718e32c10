import './instrument';
import { ensureIndexes, OutboxRelay, runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { marketplaceConfig } from './config';
import { MerchantService } from './domain/merchants';
import { marketplaceHandlers } from './grpc/handlers';
import { MongoMerchantRepository } from './repo/merchant-repo';

void runService<types.marketplace.MarketplaceServiceHandlers>({
  name: 'marketplace',
  extraConfig: marketplaceConfig,
  async setup({ mongo, nats, log, metrics }) {
    let relay: OutboxRelay | undefined;
    const repo = new MongoMerchantRepository(mongo, (id) => relay?.relaySoon(id));
    relay = new OutboxRelay(repo.model, nats, log, metrics);
    await ensureIndexes([repo.model]);
    return { handlers: marketplaceHandlers(new MerchantService(repo)), relays: [relay] };
  },
});
