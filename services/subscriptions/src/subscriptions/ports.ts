import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { LeaseStore } from '../renewals/leased-scheduler';
import type { ListQuery, SortSpec } from './list-query';
import type { SubscriptionRecord } from './subscription';

/**
 * The subscriptions' store (subscription.repo.ts): checkouts create, the merchant's use cases read and
 * change, and the renewal scheduler leases (its `dueIds`, `claim` and `release`: due on the
 * subscription's own clock).
 */
export interface SubscriptionRepository extends LeaseStore<SubscriptionRecord> {
  /**
   * Inserts with its events in the outbox; when the checkout session already has a subscription,
   * returns that one instead (created: false).
   */
  insertOrGetBySession(
    rec: SubscriptionRecord,
    events: OutboxEntry[],
  ): Promise<{ subscription: SubscriptionRecord; created: boolean }>;
  findBySession(merchantId: number, mode: Mode, sessionId: string): Promise<SubscriptionRecord | null>;
  findForMerchant(merchantId: number, mode: Mode, id: string): Promise<SubscriptionRecord | null>;
  findById(id: string): Promise<SubscriptionRecord | null>;
  /**
   * Writes `next` (version + 1) and its events only while the stored version is still `next.version`
   * (and, with `lease`, while `lease.owner` holds the lease, which is extended to `lease.until`, or given
   * back with `release`); null when someone else wrote first. The scheduling fields are recomputed from `next`.
   */
  save(
    next: SubscriptionRecord,
    events: OutboxEntry[],
    lease?: { owner: string; until: Date; release?: boolean },
  ): Promise<SubscriptionRecord | null>;
  list(
    merchantId: number,
    mode: Mode,
    query: ListQuery,
    sort: SortSpec,
  ): Promise<{ items: SubscriptionRecord[]; total: number }>;
}
