import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec } from '@ppay/runtime';
import type { KycProjection } from './kyc-projection';

/**
 * Records whether each sub-merchant can be paid out, per mode, from kyc's events (both subjects carry
 * the same case facts and version). Idempotent and order-proof: an event older than the stored
 * version changes nothing.
 */
export function kycOutcomeConsumer(projection: KycProjection): ConsumerSpec {
  return defineConsumer({
    stream: 'KYC',
    durable: 'marketplace-kyc-outcomes',
    subjects: [SUBJECTS.kycSubmissionUpdated, SUBJECTS.kycPayoutAccountUpdated],
    async handle(event) {
      await projection.record(event.data, new Date(event.occurred_at));
    },
  });
}
