import type { Mode } from '@ppay/kernel';
import type { InvitationAddress, InvitationQuery, InvitationRecord, InvitationStatus } from './invitation';

export interface InvitationRepository {
  /**
   * Inserts a pending invitation; false when this operator already has a pending invitation for this
   * business in this mode, addressed the same way (one open invitation per operator, business, mode and
   * address: a unique key).
   */
  insertPending(record: InvitationRecord): Promise<boolean>;
  findById(id: string): Promise<InvitationRecord | null>;
  /** The open (stored pending) invitation of this operator for this business in this mode, so addressed. */
  findOpen(
    marketplaceId: number,
    merchantId: number,
    mode: Mode,
    addressedBy: InvitationAddress,
  ): Promise<InvitationRecord | null>;
  /**
   * pending → `to` in one conditional write; `notExpiredAt` also requires expires_at > that time.
   * Accepting stores the reserved relationship id. Null when the invitation was no longer pending.
   */
  closePending(
    id: string,
    to: Exclude<InvitationStatus, 'pending'>,
    at: Date,
    options?: { notExpiredAt?: Date; relationshipId?: number },
  ): Promise<InvitationRecord | null>;
  /** accepted → pending (the business took another marketplace's slot meanwhile). */
  reopenAcceptance(id: string, relationshipId: number): Promise<boolean>;
  markRelationshipWritten(id: string): Promise<void>;
  list(
    query: InvitationQuery,
    now: Date,
    page: number,
    limit: number,
  ): Promise<{ items: InvitationRecord[]; total: number }>;
  /** Pending invitations whose expiry has passed, oldest first. */
  dueForExpiry(now: Date, limit: number): Promise<InvitationRecord[]>;
  /** Accepted invitations whose relationship is not known to exist, accepted before `acceptedBefore`. */
  unfinishedAcceptances(acceptedBefore: Date, limit: number): Promise<InvitationRecord[]>;
}
