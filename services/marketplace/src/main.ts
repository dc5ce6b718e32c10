import './instrument';
import {
  ensureIndexes,
  merchantDeletionConsumer,
  tombstoneSweepJob,
  MerchantTombstones,
  OutboxRelay,
  runService,
} from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { marketplaceConfig } from './config';
import { MerchantDeletionService } from './domain/deletions';
import { MarketplaceService } from './domain/marketplace';
import { MerchantService } from './domain/merchants';
import { deletionAckConsumer } from './events/deletions';
import { kycOutcomeConsumer } from './events/kyc-outcomes';
import { relationshipSyncConsumer } from './events/relationship-sync';
import { marketplaceHandlers } from './grpc/handlers';
import { deletionModel, MongoDeletionRepository } from './repo/deletion-repo';
import { GrpcKyc, GrpcWalletPayouts } from './adapters/platform-clients';
import { MarketplacePayouts } from './domain/payouts';
import { invitationModel, MongoInvitationRepository } from './repo/invitation-repo';
import { migrateLegacyMarketplaceData } from './repo/legacy-migration';
import { merchantModel, MongoMerchantRepository } from './repo/merchant-repo';
import { MERCHANT_DATA } from './repo/merchant-data';
import { MongoRelationshipRepository, relationshipModel } from './repo/relationship-repo';

void runService<types.marketplace.MarketplaceServiceHandlers, (typeof marketplaceConfig)['properties']>({
  name: 'marketplace',
  extraConfig: marketplaceConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const model = merchantModel(mongo);
    const relationships = relationshipModel(mongo);
    const invitations = invitationModel(mongo);
    await migrateLegacyMarketplaceData(relationships, invitations, log);
    const deletionDocs = deletionModel(mongo);
    await ensureIndexes([model, relationships, invitations, deletionDocs]);
    const relay = new OutboxRelay(model, nats, log, metrics);
    const relationshipRelay = new OutboxRelay(relationships, nats, log, metrics);
    const deletionRelay = new OutboxRelay(deletionDocs, nats, log, metrics);
    const repo = new MongoMerchantRepository(model, (id) => relay.relaySoon(id));
    const merchants = new MerchantService(repo, {
      cacheTtlMs: config.MERCHANT_CACHE_TTL_MS,
      cacheMaxEntries: config.MERCHANT_CACHE_MAX_ENTRIES,
    });
    const relationshipRepo = new MongoRelationshipRepository(relationships, (id) => relationshipRelay.relaySoon(id));
    const walletPayouts = new GrpcWalletPayouts(config.PAYMENTS_GRPC_ADDR, metrics);
    const kyc = new GrpcKyc(config.KYC_GRPC_ADDR, metrics);
    const payouts = new MarketplacePayouts(merchants, relationshipRepo, walletPayouts, kyc);
    const marketplace = new MarketplaceService(
      merchants,
      relationshipRepo,
      new MongoInvitationRepository(invitations),
      (err, merchantId) => log.warn({ err, merchantId }, 'sub-merchant sync deferred to the relationship consumer'),
    );
    const deletions = new MerchantDeletionService(
      {
        merchants,
        relationships: relationshipRepo,
        deletions: new MongoDeletionRepository(deletionDocs, (id) => deletionRelay.relaySoon(id)),
        gatewayAccounts: kyc,
      },
      { waitMs: config.DELETE_MERCHANT_WAIT_MS, pollMs: 100 },
    );
    const tombstones = new MerchantTombstones(mongo);
    return {
      handlers: marketplaceHandlers(merchants, marketplace, deletions, payouts),
      relays: [relay, relationshipRelay, deletionRelay],
      consumers: [
        relationshipSyncConsumer(marketplace),
        kycOutcomeConsumer(marketplace),
        merchantDeletionConsumer({
          service: 'marketplace',
          conn: mongo,
          nats,
          targets: MERCHANT_DATA,
          tombstones,
          log,
          // "Clear marketplace references" again (the call did it first), then forget the cached record.
          beforePurge: async (scope) => {
            await merchants.clearMembership(scope.merchant_id, scope.mode);
            merchants.forget(scope.merchant_id);
          },
        }),
        deletionAckConsumer(deletions),
      ],
      jobs: [
        tombstoneSweepJob(mongo, MERCHANT_DATA),
        // Expiry is a status computed at read; this stores it (FerretDB has no TTL indexes).
        { name: 'invitation-expiry', intervalMs: 60_000, run: () => marketplace.expireInvitations() },
        // Acceptances interrupted between the invitation and the relationship write (architecture.md).
        { name: 'invitation-acceptance-repair', intervalMs: 30_000, run: () => marketplace.completeAcceptances() },
      ],
      onShutdown: async () => {
        walletPayouts.close();
        kyc.close();
      },
    };
  },
});
