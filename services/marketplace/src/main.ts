import './instrument';
import { ensureIndexes, MerchantTombstones, OutboxRelay, runService, TOMBSTONE_WINDOW_MS } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { marketplaceConfig } from './config';
import { deletionAckConsumer } from './deletions/deletion-acks.consumer';
import { MerchantDeletionService } from './deletions/deletions';
import { deletionHandlers } from './deletions/deletions.handlers';
import { deletionModel, MongoDeletionRepository } from './deletions/merchant-deletion.repo';
import { CreateOrLink } from './invitations/create-or-link';
import { invitationModel, MongoInvitationRepository } from './invitations/invitation.repo';
import { InvitationService } from './invitations/invitations';
import { invitationHandlers } from './invitations/invitations.handlers';
import { kycOutcomeConsumer } from './kyc-projection/kyc-outcomes.consumer';
import { KycProjection } from './kyc-projection/kyc-projection';
import { MongoPayoutEligibilityRepository } from './kyc-projection/payout-eligibility.repo';
import { MERCHANT_DATA } from './merchant-data.repo';
import { merchantModel, MongoMerchantRepository } from './merchants/merchant.repo';
import { MerchantService } from './merchants/merchants';
import { merchantHandlers } from './merchants/merchants.handlers';
import { MarketplacePayouts } from './payouts/payouts';
import { payoutHandlers } from './payouts/payouts.handlers';
import { GrpcKyc, GrpcWalletPayouts } from './platform-clients.adapter';
import { migrateLegacyMarketplaceData } from './relationships/legacy-migration.repo';
import { MembershipSync } from './relationships/membership-sync';
import { relationshipSyncConsumer } from './relationships/relationship-sync.consumer';
import { MongoRelationshipRepository, relationshipModel } from './relationships/relationship.repo';
import { rejoinRule } from './relationships/rejoin-rule';
import { RelationshipService } from './relationships/relationships';
import { relationshipHandlers } from './relationships/relationships.handlers';
import { SubMerchantLookups } from './sub-merchant-lookups/sub-merchant-lookups';
import { subMerchantLookupHandlers } from './sub-merchant-lookups/sub-merchant-lookups.handlers';

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
    const merchants = new MerchantService(new MongoMerchantRepository(model, (id) => relay.relaySoon(id)), {
      cacheTtlMs: config.MERCHANT_CACHE_TTL_MS,
      cacheMaxEntries: config.MERCHANT_CACHE_MAX_ENTRIES,
    });
    const relationshipRepo = new MongoRelationshipRepository(relationships, (id) => relationshipRelay.relaySoon(id));
    const membership = new MembershipSync(merchants, relationshipRepo, (err, merchantId) =>
      log.warn({ err, merchantId }, 'sub-merchant sync deferred to the relationship consumer'),
    );
    const deletionRepo = new MongoDeletionRepository(deletionDocs, (id) => deletionRelay.relaySoon(id));
    // A deleted business joins that mode again only after every service's tombstone window.
    const rejoin = rejoinRule(deletionRepo, TOMBSTONE_WINDOW_MS);
    const relationshipService = new RelationshipService(merchants, relationshipRepo, membership, undefined, rejoin);
    const invitationService = new InvitationService({
      merchants,
      relationships: relationshipRepo,
      invitations: new MongoInvitationRepository(invitations),
      membership,
      rejoin,
    });
    const kycProjection = new KycProjection(new MongoPayoutEligibilityRepository(model), merchants);
    const walletPayouts = new GrpcWalletPayouts(config.PAYMENTS_GRPC_ADDR, metrics);
    const kyc = new GrpcKyc(config.KYC_GRPC_ADDR, metrics);
    const payouts = new MarketplacePayouts(merchants, relationshipRepo, walletPayouts, kyc);
    const deletions = new MerchantDeletionService(
      {
        merchants,
        relationships: relationshipRepo,
        deletions: deletionRepo,
        gatewayAccounts: kyc,
      },
      { waitMs: config.DELETE_MERCHANT_WAIT_MS, pollMs: 100 },
    );
    const tombstones = new MerchantTombstones(mongo);
    return {
      handlers: {
        ...merchantHandlers(merchants, relationshipService),
        ...relationshipHandlers(relationshipService),
        ...invitationHandlers(invitationService, new CreateOrLink(relationshipService, invitationService)),
        ...subMerchantLookupHandlers(new SubMerchantLookups(merchants, relationshipService)),
        ...payoutHandlers(payouts),
        ...deletionHandlers(deletions),
      },
      relays: [relay, relationshipRelay, deletionRelay],
      consumers: [
        relationshipSyncConsumer(membership),
        kycOutcomeConsumer(kycProjection),
        deletionAckConsumer(deletions),
      ],
      merchantData: {
        targets: MERCHANT_DATA,
        tombstones,
        // "Clear marketplace references" again (the call did it first), then forget the cached record.
        beforePurge: async (scope) => {
          await merchants.clearMembership(scope.merchant_id, scope.mode);
          merchants.forget(scope.merchant_id);
        },
      },
      jobs: [
        // Expiry is a status computed at read; this stores it (FerretDB has no TTL indexes).
        { name: 'invitation-expiry', intervalMs: 60_000, run: () => invitationService.expireDue() },
        // Acceptances interrupted between the invitation and the relationship write (architecture.md).
        {
          name: 'invitation-acceptance-repair',
          intervalMs: 30_000,
          run: () => invitationService.completeAcceptances(),
        },
      ],
      onShutdown: async () => {
        walletPayouts.close();
        kyc.close();
      },
    };
  },
});
