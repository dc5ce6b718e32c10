import { PlatformError, type Mode } from '@ppay/kernel';
import { pendingServices } from '../deletions/merchant-deletion';
import type { MerchantDeletionHistory } from '../ports';

/**
 * A business deleted from a mode may join a marketplace of that mode again (accept an invitation, or be
 * added again by the operator that created it) only once its deletion is complete and older than the
 * services' tombstone window: until then, a redelivered deletion request or the tombstone sweep (which
 * repeats the purge of recent deletions) would delete the new relationship's data as the old one's.
 * Deletions are keyed by relationship, so the new membership is deleted by a deletion of its own.
 */
export interface RejoinRule {
  assertMayJoin(merchantId: number, mode: Mode, now: Date): Promise<void>;
}

export const NO_REJOIN_RULE: RejoinRule = { assertMayJoin: async () => undefined };

export function rejoinRule(history: MerchantDeletionHistory, windowMs: number): RejoinRule {
  return {
    async assertMayJoin(merchantId, mode, now) {
      const last = await history.latestFor(merchantId, mode);
      if (!last) return;
      const from = new Date(last.requested_at.getTime() + windowMs);
      const waiting = pendingServices(last);
      if (waiting.length === 0 && from.getTime() <= now.getTime()) return;
      throw new PlatformError('MERCHANT_RECENTLY_DELETED', undefined, {
        detail: waiting.length
          ? `The deletion is still running (${waiting.join(', ')})`
          : `It can join again from ${from.toISOString()}`,
      });
    },
  };
}
