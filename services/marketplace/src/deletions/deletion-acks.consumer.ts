import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec } from '@ppay/runtime';
import type { MerchantDeletionService } from './deletions';

/**
 * Every service's deletions.merchant.acknowledged → `$addToSet` on the deletion document (idempotent,
 * so redeliveries and repeated acknowledgements are harmless; an unknown deletion is ignored).
 */
export function deletionAckConsumer(deletions: MerchantDeletionService): ConsumerSpec {
  return defineConsumer({
    stream: 'DELETIONS',
    durable: 'marketplace_deletion_acks',
    subjects: [SUBJECTS.merchantDeletionAcknowledged],
    async handle({ data }) {
      await deletions.acknowledge(data.deletion_id, data.service);
    },
  });
}
