import type { Mode } from '@ppay/kernel';

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired';
export const INVITATION_STATUSES: readonly InvitationStatus[] = [
  'pending',
  'accepted',
  'declined',
  'cancelled',
  'expired',
];

/** How long an invitation waits for an answer. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * An operator's invitation of an existing business (by merchant_id) in one mode: its own aggregate,
 * separate from relationships, so a pending invitation takes no slot. The business joins (a
 * relationship is made) only when it accepts with its own key of the same mode.
 *
 * Invitations are stored for any merchant_id, even one that does not exist, belongs to an operator
 * or is someone's sub-merchant: the operator's answer is the same in every case (no enumeration);
 * such an invitation can never be accepted and expires.
 */
export interface InvitationRecord {
  /** `inv_` + 32 random characters: unguessable, the `invite_token` partners send back. */
  id: string;
  marketplace_id: number;
  /** Snapshot of the operator's marketplace name, shown to the invited business. */
  marketplace_name: string;
  merchant_id: number;
  mode: Mode;
  /** Proposed per-merchant decimal rate; null = the marketplace default applies. */
  commission_rate: string | null;
  /** As stored; a pending invitation past `expires_at` reads as expired (see effectiveStatus). */
  status: InvitationStatus;
  invited_at: Date;
  expires_at: Date;
  /** When it was accepted, declined, cancelled or expired. */
  responded_at: Date | null;
  /** Reserved in the same write that accepts, so the relationship insert can be repeated safely. */
  relationship_id: number | null;
  /** The relationship of an accepted invitation is known to exist (the repair sweep's marker). */
  relationship_written: boolean;
}

/** Expiry is computed at read (FerretDB has no TTL indexes); a sweep job then stores it. */
export function effectiveStatus(inv: InvitationRecord, now: Date): InvitationStatus {
  return inv.status === 'pending' && inv.expires_at.getTime() <= now.getTime() ? 'expired' : inv.status;
}

/** The invitation as operators and invited businesses see it: never the invitee's e-mail. */
export function invitationResource(inv: InvitationRecord, now: Date) {
  return {
    invite_token: inv.id,
    marketplace_id: inv.marketplace_id,
    marketplace_name: inv.marketplace_name,
    merchant_id: inv.merchant_id,
    mode: inv.mode,
    commission_rate: inv.commission_rate,
    status: effectiveStatus(inv, now),
    invited_at: inv.invited_at,
    expires_at: inv.expires_at,
    responded_at: inv.responded_at,
  };
}

export type InvitationDirection = 'sent' | 'received';

export interface InvitationQuery {
  direction: InvitationDirection;
  /** The operator (sent) or the invited business (received). */
  merchant_id: number;
  mode: Mode;
  /** Effective status (pending excludes, expired includes, pending invitations past their expiry). */
  status?: InvitationStatus;
}

export interface InvitationRepository {
  /**
   * Inserts a pending invitation; false when this operator already has a pending invitation for this
   * business in this mode (one open invitation per operator, business and mode: a unique key).
   */
  insertPending(record: InvitationRecord): Promise<boolean>;
  findById(id: string): Promise<InvitationRecord | null>;
  /** The open (stored pending) invitation of this operator for this business in this mode. */
  findOpen(marketplaceId: number, merchantId: number, mode: Mode): Promise<InvitationRecord | null>;
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
