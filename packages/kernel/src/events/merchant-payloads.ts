import type { ComponentName } from '../components';
import type { Mode } from '../caller';

// Payloads of the APIKEYS, MERCHANTS and DELETIONS streams (subjects in catalogue.ts).

export interface ApiKeyChanged {
  key_id: string;
  merchant_id: number;
  mode: Mode;
  status: 'active' | 'disabled' | 'revoked';
  api_version: string;
}

/** merchants.created as first published (before business names and settings existed). */
export interface MerchantCreatedV1 {
  merchant_id: number;
  country: string;
  baseline_currency: string;
  is_marketplace_operator: boolean;
  marketplace_id: number | null;
}

/** merchants.created since the hosted checkout page (display name) and business settings (version 0). */
export interface MerchantCreatedV2 extends MerchantCreatedV1 {
  business_name: string;
  customer_pays_fees: boolean;
}

export type MerchantCreated = MerchantCreatedV2;

/**
 * A merchant changed its business settings. `settings_version` grows with every change, so a
 * consumer that sees them out of order keeps the newest.
 */
export interface MerchantSettingsUpdated {
  merchant_id: number;
  customer_pays_fees: boolean;
  settings_version: number;
}

/** An operator set up (or re-set up) its marketplace (spec 4.9 POST /marketplace/setup). */
/** merchants.marketplace_updated as first published (one marketplace per operator, whatever the mode). */
export interface MarketplaceUpdatedV1 {
  marketplace_id: number;
  name: string;
  /** Decimal string (0.0800 = 8%), null when there is no default (commission falls back to 0). */
  default_commission_rate: string | null;
  status: 'active';
}

/** An operator's marketplace settings in one mode (sandbox and live are separate marketplaces). */
export interface MarketplaceUpdatedV2 extends MarketplaceUpdatedV1 {
  mode: Mode;
}

export type MarketplaceUpdated = MarketplaceUpdatedV2;

/**
 * An operator ↔ sub-merchant relationship was created or changed (spec 2.6, 3.5). The relationship
 * document is the source of truth; `version` grows with every change of one relationship.
 */
export interface RelationshipChangedV1 {
  relationship_id: number;
  marketplace_id: number;
  merchant_id: number;
  status: 'pending' | 'active' | 'suspended';
  /** Per-merchant decimal rate, null when the marketplace default applies. */
  commission_rate: string | null;
  version: number;
  change: 'created' | 'invited' | 'accepted' | 'commission_updated' | 'suspended' | 'reactivated';
}

/** A relationship belongs to one mode: a sandbox relationship never splits a live payment. */
export interface RelationshipChangedV2 extends RelationshipChangedV1 {
  mode: Mode;
}

export type RelationshipChanged = RelationshipChangedV2;

/**
 * Delete merchant: which of the merchant's data to delete. `every_mode` deletes the whole business
 * (every mode, and the data that has no mode: the business record, products, price rules); otherwise
 * only the documents of `mode` (docs/decisions.md, Delete merchant).
 */
export interface MerchantDeletionScope {
  deletion_id: string;
  merchant_id: number;
  mode: Mode;
  every_mode: boolean;
}

/** deletions.merchant.requested: published by marketplace from the deletion document's outbox. */
export type MerchantDeletionRequested = MerchantDeletionScope;

/** deletions.merchant.acknowledged: one service has deleted everything of the scope it owns. */
export interface MerchantDeletionAcknowledged {
  deletion_id: string;
  merchant_id: number;
  service: ComponentName;
  /** Documents deleted by this pass (0 on a repeat), per collection. */
  deleted: Record<string, number>;
}
