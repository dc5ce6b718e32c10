import type { OutboxEntry } from '@ppay/kernel';

export type RelationshipStatus = 'pending' | 'active' | 'suspended';
export const RELATIONSHIP_STATUSES: readonly RelationshipStatus[] = ['pending', 'active', 'suspended'];

/**
 * Operator ↔ sub-merchant relationship (spec 2.6, 3.5): its own aggregate and the source of truth for
 * membership. The sub-merchant's merchant document only caches marketplace_id / commission rate.
 */
export interface RelationshipRecord {
  id: number;
  /** The operator's business id. */
  marketplace_id: number;
  merchant_id: number;
  /** Per-merchant decimal rate (update-commission); null = the marketplace default applies. */
  commission_rate: string | null;
  status: RelationshipStatus;
  /** Set while an invitation to an existing business is pending; cleared when accepted. */
  invite_token: string | null;
  invited_at: Date | null;
  joined_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Grows by one with every change: optimistic concurrency and ordering of the merchant cache. */
  version: number;
}

export type RelationshipChanges = Partial<
  Pick<RelationshipRecord, 'commission_rate' | 'status' | 'invite_token' | 'joined_at' | 'updated_at'>
>;

export interface RelationshipRepository {
  nextId(): Promise<number>;
  /** MERCHANT_ALREADY_LINKED when the merchant already has a relationship (unique merchant_id). */
  insert(record: RelationshipRecord, event: OutboxEntry): Promise<void>;
  findByMerchant(merchantId: number): Promise<RelationshipRecord | null>;
  findByInviteToken(token: string): Promise<RelationshipRecord | null>;
  list(
    marketplaceId: number,
    status: RelationshipStatus,
    page: number,
    limit: number,
  ): Promise<{ items: RelationshipRecord[]; total: number }>;
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
