import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec } from '@ppay/runtime';
import type { MarketplaceService } from '../domain/marketplace';

/**
 * Repairs the sub-merchant's cached marketplace fields (of the event's mode) after every relationship
 * change. The request path already did the same write; this covers a crash between the relationship
 * write and it. Idempotent: it re-reads the relationship and writes only a newer version.
 */
export function relationshipSyncConsumer(marketplace: MarketplaceService): ConsumerSpec {
  return defineConsumer({
    stream: 'MERCHANTS',
    durable: 'marketplace-relationship-sync',
    subjects: [SUBJECTS.relationshipChanged],
    async handle({ data }) {
      await marketplace.syncMerchant(data.merchant_id, data.mode);
    },
  });
}
