import { prefixedId, type Mode } from '@ppay/kernel';

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
  /**
   * How the operator named the business: by its id (POST /marketplace/merchants {merchant_id}), or by
   * new-business fields whose e-mail turned out to be registered (create-or-link, Hardening 2 item 11).
   * The operator never sees the id of a business it named by e-mail, until it joins.
   */
  addressed_by: InvitationAddress;
}

export type InvitationAddress = 'merchant_id' | 'email';

/**
 * The unique key of a pending invitation: one per operator, business, mode and way of naming it. An
 * invitation by e-mail never meets one by id, so neither answer tells the operator which id an e-mail is.
 */
export const openKey = (marketplaceId: number, merchantId: number, mode: Mode, addressedBy: InvitationAddress) =>
  `${marketplaceId}:${merchantId}:${mode}${addressedBy === 'email' ? ':email' : ''}`;

/** A new invitation, pending for INVITATION_TTL_MS from `now`, with an unguessable token. */
export function pendingInvitation(
  invited: Pick<InvitationRecord, 'marketplace_id' | 'marketplace_name' | 'merchant_id' | 'mode' | 'commission_rate'>,
  now: Date,
  addressedBy: InvitationAddress = 'merchant_id',
): InvitationRecord {
  return {
    id: prefixedId('inv', 32),
    ...invited,
    addressed_by: addressedBy,
    status: 'pending',
    invited_at: now,
    expires_at: new Date(now.getTime() + INVITATION_TTL_MS),
    responded_at: null,
    relationship_id: null,
    relationship_written: false,
  };
}

/** Expiry is computed at read (FerretDB has no TTL indexes); a sweep job then stores it. */
export function effectiveStatus(inv: InvitationRecord, now: Date): InvitationStatus {
  return inv.status === 'pending' && inv.expires_at.getTime() <= now.getTime() ? 'expired' : inv.status;
}

/** Who reads an invitation: the operator that sent it, or the business it invites. */
export type InvitationViewer = 'operator' | 'business';

/**
 * The invitation as operators and invited businesses see it: never the invitee's e-mail, and never,
 * to the operator, the id of a business it only named by e-mail (until it joins: then the relationship
 * shows it), so an e-mail cannot be turned into an account.
 */
export function invitationResource(inv: InvitationRecord, now: Date, viewer: InvitationViewer) {
  const hidden = viewer === 'operator' && inv.addressed_by === 'email' && inv.status !== 'accepted';
  return {
    invite_token: inv.id,
    marketplace_id: inv.marketplace_id,
    marketplace_name: inv.marketplace_name,
    merchant_id: hidden ? null : inv.merchant_id,
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
