import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec } from '@ppay/runtime';
import type { MembershipSync } from './membership-sync';

/**
 * Repairs the sub-merchant's cached marketplace fields (of the event's mode) after every relationship
 * change. The request path already did the same write; this covers a crash between the relationship
 * write and it. Idempotent: it re-reads the relationship and writes only a newer version.
 */
export function relationshipSyncConsumer(membership: MembershipSync): ConsumerSpec {
  return defineConsumer({
    stream: 'MERCHANTS',
    durable: 'marketplace-relationship-sync',
    subjects: [SUBJECTS.relationshipChanged],
    async handle({ data }) {
      await membership.syncMerchant(data.merchant_id, data.mode);
    },
  });
}
