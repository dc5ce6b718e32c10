import type { Mode, OutboxEntry } from '@ppay/kernel';

/**
 * A relationship exists once a business has joined (created by the operator, or an accepted
 * invitation); pending invitations live in their own collection (see invitations.ts).
 */
export type RelationshipStatus = 'active' | 'suspended';
export const RELATIONSHIP_STATUSES: readonly RelationshipStatus[] = ['active', 'suspended'];

/**
 * Operator ↔ sub-merchant relationship (spec 2.6, 3.5) in ONE mode: its own aggregate and the source
 * of truth for membership. Sandbox and live are separate relationships, so a sandbox key's
 * commission, suspension or link never reaches a live split. The sub-merchant's merchant document
 * only caches marketplace_id / commission rate per mode.
 */
export interface RelationshipRecord {
  id: number;
  /** The operator's business id. */
  marketplace_id: number;
  merchant_id: number;
  /** The mode of the operator's key that made it (or of the accepted invitation). */
  mode: Mode;
  /** Per-merchant decimal rate (update-commission); null = the marketplace default applies. */
  commission_rate: string | null;
  status: RelationshipStatus;
  /** Always null today: a relationship is made when the invitation is accepted (spec 2.6 field). */
  invite_token: string | null;
  /** When the accepted invitation was sent; null for businesses the operator created. */
  invited_at: Date | null;
  joined_at: Date | null;
  /** The invitation this relationship was made from (repairs an acceptance interrupted by a crash). */
  invitation_id?: string | null;
  created_at: Date;
  updated_at: Date;
  /** Grows by one with every change: optimistic concurrency and ordering of the merchant cache. */
  version: number;
}

export type RelationshipChanges = Partial<Pick<RelationshipRecord, 'commission_rate' | 'status' | 'updated_at'>>;

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
  /**
   * Applies `changes`, bumps the version and appends `event` in one write, only while the
   * relationship still is at `expected.version` and in one of `fromStatuses`; null otherwise.
   */
  /** Delete merchant: removes the relationship (a repeat removes nothing). */
  remove(id: number): Promise<void>;
  update(
    expected: RelationshipRecord,
    fromStatuses: RelationshipStatus[],
    changes: RelationshipChanges,
    event: OutboxEntry,
  ): Promise<RelationshipRecord | null>;
}
