import './instrument';
import { ensureIndexes, OutboxRelay, runService } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { marketplaceConfig } from './config';
import { MarketplaceService } from './domain/marketplace';
import { MerchantService } from './domain/merchants';
import { kycOutcomeConsumer } from './events/kyc-outcomes';
import { relationshipSyncConsumer } from './events/relationship-sync';
import { marketplaceHandlers } from './grpc/handlers';
import { GrpcPayoutAccounts, GrpcWalletPayouts } from './adapters/platform-clients';
import { MarketplacePayouts } from './domain/payouts';
import { invitationModel, MongoInvitationRepository } from './repo/invitation-repo';
import { migrateLegacyMarketplaceData } from './repo/legacy-migration';
import { merchantModel, MongoMerchantRepository } from './repo/merchant-repo';
import { MongoRelationshipRepository, relationshipModel } from './repo/relationship-repo';

void runService<types.marketplace.MarketplaceServiceHandlers, (typeof marketplaceConfig)['properties']>({
  name: 'marketplace',
  extraConfig: marketplaceConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const model = merchantModel(mongo);
    const relationships = relationshipModel(mongo);
    const invitations = invitationModel(mongo);
    await migrateLegacyMarketplaceData(relationships, invitations, log);
    await ensureIndexes([model, relationships, invitations]);
    const relay = new OutboxRelay(model, nats, log, metrics);
    const relationshipRelay = new OutboxRelay(relationships, nats, log, metrics);
    const repo = new MongoMerchantRepository(model, (id) => relay.relaySoon(id));
    const merchants = new MerchantService(repo, {
      cacheTtlMs: config.MERCHANT_CACHE_TTL_MS,
      cacheMaxEntries: config.MERCHANT_CACHE_MAX_ENTRIES,
    });
    const relationshipRepo = new MongoRelationshipRepository(relationships, (id) => relationshipRelay.relaySoon(id));
    const walletPayouts = new GrpcWalletPayouts(config.PAYMENTS_GRPC_ADDR, metrics);
    const payoutAccounts = new GrpcPayoutAccounts(config.KYC_GRPC_ADDR, metrics);
    const payouts = new MarketplacePayouts(merchants, relationshipRepo, walletPayouts, payoutAccounts);
    const marketplace = new MarketplaceService(
      merchants,
      relationshipRepo,
      new MongoInvitationRepository(invitations),
      (err, merchantId) => log.warn({ err, merchantId }, 'sub-merchant sync deferred to the relationship consumer'),
    );
    return {
      handlers: marketplaceHandlers(merchants, marketplace, payouts),
      relays: [relay, relationshipRelay],
      consumers: [relationshipSyncConsumer(marketplace), kycOutcomeConsumer(marketplace)],
      jobs: [
        // Expiry is a status computed at read; this stores it (FerretDB has no TTL indexes).
        { name: 'invitation-expiry', intervalMs: 60_000, run: () => marketplace.expireInvitations() },
        // Acceptances interrupted between the invitation and the relationship write (architecture.md).
        { name: 'invitation-acceptance-repair', intervalMs: 30_000, run: () => marketplace.completeAcceptances() },
      ],
      onShutdown: async () => {
        walletPayouts.close();
        payoutAccounts.close();
      },
    };
  },
});
