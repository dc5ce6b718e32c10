import { outboxEvent, SUBJECTS, type Mode, type OutboxEntry, type RelationshipChanged } from '@ppay/kernel';
import { payoutStatusIn, type PayoutEligibilityByMode } from '../kyc-projection/payout-eligibility';
import { marketplaceIn, type MerchantRecord } from '../merchants/merchant';
import { resolveCommission, type CommissionSource } from './commission';

/**
 * A relationship exists once a business has joined (created by the operator, or an accepted
 * invitation); pending invitations live in their own collection (see invitations/invitation.ts).
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

/**
 * A relationship as it is made, when the business joins (`invitation`: the accepted invitation; null
 * for a business the operator created): active, at version 1.
 */
export function joinedRelationship(
  joined: Pick<RelationshipRecord, 'id' | 'marketplace_id' | 'merchant_id' | 'mode' | 'commission_rate'>,
  invitation: { id: string; invited_at: Date } | null,
  joinedAt: Date,
): RelationshipRecord {
  return {
    ...joined,
    status: 'active',
    invite_token: null,
    invited_at: invitation?.invited_at ?? null,
    joined_at: joinedAt,
    invitation_id: invitation?.id ?? null,
    created_at: joinedAt,
    updated_at: joinedAt,
    version: 1,
  };
}

/** merchants.relationship_changed, carried in the relationship's outbox with the write it reports. */
export function relationshipChangedEvent(rel: RelationshipRecord, change: RelationshipChanged['change']): OutboxEntry {
  return outboxEvent(
    SUBJECTS.relationshipChanged,
    {
      relationship_id: rel.id,
      marketplace_id: rel.marketplace_id,
      merchant_id: rel.merchant_id,
      mode: rel.mode,
      status: rel.status,
      commission_rate: rel.commission_rate,
      version: rel.version,
      change,
    },
    { merchantId: rel.marketplace_id, mode: rel.mode },
  );
}

/** A relationship as partners see it (spec 2.6) with its effective commission. */
export interface RelationshipView {
  relationship: RelationshipRecord;
  merchant_email: string;
  /** The sub-merchant's KYC / payout outcome per mode, as last heard from kyc. */
  payout_eligibility: PayoutEligibilityByMode;
  commission_rate: string;
  commission_source: CommissionSource;
}

/** The view of `rel`, its commission resolved against the operator's default of the relationship's mode. */
export function relationshipView(
  rel: RelationshipRecord,
  merchant: MerchantRecord | undefined,
  operator: MerchantRecord,
): RelationshipView {
  const { rate, source } = resolveCommission(
    rel.commission_rate,
    marketplaceIn(operator, rel.mode)?.default_commission_rate,
  );
  return {
    relationship: rel,
    merchant_email: merchant?.email ?? '',
    payout_eligibility: merchant?.payout_eligibility ?? {},
    commission_rate: rate,
    commission_source: source,
  };
}

/**
 * The spec 2.6 list item: the relationship with its effective commission (the stored per-merchant
 * rate is null when the default applies), the merchant's e-mail as `merchant.educator_email`, and
 * (additive) its KYC status and payout eligibility in the caller's mode.
 */
export function relationshipResource(v: RelationshipView) {
  const { invitation_id: _invitation, ...relationship } = v.relationship;
  return {
    ...relationship,
    commission_rate: v.commission_rate,
    commission_source: v.commission_source,
    merchant: { id: v.relationship.merchant_id, educator_email: v.merchant_email },
    ...payoutStatusIn(v.payout_eligibility, relationship.mode),
  };
}
