import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { MerchantDeletionRecord } from './deletions/merchant-deletion';
import type { RelationshipChanges, RelationshipRecord, RelationshipStatus } from './relationships/relationship';

/**
 * Ports that several subdomains use: who belongs to which marketplace decides relationships,
 * invitations, payouts and deletions alike. A subdomain's own ports are in its `ports.ts`.
 */
export interface RelationshipRepository {
  nextId(): Promise<number>;
  /**
   * MERCHANT_ALREADY_LINKED when the merchant already has a relationship in this mode (unique
   * merchant_id + mode); an insert with an id that already exists (a repeated acceptance) is a no-op.
   */
  insert(record: RelationshipRecord, event: OutboxEntry): Promise<void>;
  findById(id: number): Promise<RelationshipRecord | null>;
  findByMerchant(merchantId: number, mode: Mode): Promise<RelationshipRecord | null>;
  list(
    marketplaceId: number,
    mode: Mode,
    status: RelationshipStatus,
    page: number,
    limit: number,
  ): Promise<{ items: RelationshipRecord[]; total: number }>;
  /** Delete merchant: removes the relationship (a repeat removes nothing). */
  remove(id: number): Promise<void>;
  /**
   * Applies `changes`, bumps the version and appends `event` in one write, only while the
   * relationship still is at `expected.version` and in one of `fromStatuses`; null otherwise.
   */
  update(
    expected: RelationshipRecord,
    fromStatuses: RelationshipStatus[],
    changes: RelationshipChanges,
    event: OutboxEntry,
  ): Promise<RelationshipRecord | null>;
}

/** A business's deletions (the deletions subdomain's documents), read before it joins a marketplace again. */
export interface MerchantDeletionHistory {
  /** Its most recent deletion in this mode, by any operator. */
  latestFor(merchantId: number, mode: Mode): Promise<MerchantDeletionRecord | null>;
}
