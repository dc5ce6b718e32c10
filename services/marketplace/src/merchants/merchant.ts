import type { Mode } from '@ppay/kernel';
import type { PayoutEligibilityByMode } from '../kyc-projection/payout-eligibility';

/** Marketplace settings of an operator (spec 4.9 setup), kept on its own merchant document. */
export interface MarketplaceSettings {
  name: string;
  /** Decimal string (0.0800 = 8%); null = no default, commission falls back to 0. */
  default_commission_rate: string | null;
  status: 'active';
  created_at: Date;
  updated_at: Date;
}

/**
 * The sub-merchant side of a relationship in one mode, cached on the merchant document (spec 3.5).
 * Derived from the relationship document, the source of truth; `relationship_id`/`version` order
 * updates.
 */
export interface MarketplaceMembership {
  marketplace_id: number | null;
  marketplace_commission_rate: string | null;
  relationship_id: number;
  version: number;
}

export interface MerchantRecord {
  id: number;
  email: string;
  business_name: string;
  country: string;
  baseline_currency: string;
  is_marketplace_operator: boolean;
  owner_user_id: string;
  /**
   * Per mode: the operator's business id and commission while this merchant is an active
   * sub-merchant there (spec 3.5 clears them). Absent for a mode it never joined.
   */
  membership?: Partial<Record<Mode, MarketplaceMembership>> | null;
  /** Business setting (both modes): the customer pays the transaction fee on top of the price. */
  customer_pays_fees: boolean;
  /** Grows with every settings change; orders merchants.settings_updated events for consumers. */
  settings_version: number;
  settings_updated_at: Date | null;
  created_at: Date;
  /** Per mode, set once the operator has called POST /marketplace/setup with a key of that mode. */
  marketplaces?: Partial<Record<Mode, MarketplaceSettings>> | null;
  /** Operator whose create-or-link call created this business (lets a retried create recover). */
  created_by_marketplace_id?: number | null;
  /** Per mode; absent until kyc publishes about this merchant (kyc-projection/). */
  payout_eligibility?: PayoutEligibilityByMode | null;
}

/** The settings a merchant may change; an absent field is left as it is. */
export interface AccountSettingsPatch {
  customer_pays_fees?: boolean;
}

export interface CreateMerchantInput {
  email: string;
  business_name?: string;
  country: string;
  baseline_currency: string;
  is_marketplace_operator?: boolean;
  owner_user_id?: string;
  created_by_marketplace_id?: number;
}

/** An operator's marketplace in one mode (sandbox and live are set up separately). */
export function marketplaceIn(m: MerchantRecord, mode: Mode): MarketplaceSettings | null {
  return m.marketplaces?.[mode] ?? null;
}

/** The Merchant message (CLI bootstrap): marketplace membership as seen in `mode`. */
export function merchantResource(m: MerchantRecord, mode: Mode) {
  const membership = m.membership?.[mode];
  return {
    ...m,
    marketplace_id: membership?.marketplace_id ?? null,
    marketplace_commission_rate: membership?.marketplace_commission_rate ?? null,
  };
}

/** Spec 4.7 GET /account: the calling key's merchant, plus its mode and settings (additive fields). */
export function accountResource(m: MerchantRecord, mode: string | undefined) {
  return {
    merchant_id: m.id,
    baseline_currency: m.baseline_currency,
    mode: mode ?? '',
    is_marketplace_operator: m.is_marketplace_operator,
    customer_pays_fees: m.customer_pays_fees,
  };
}

/** GET/PATCH /account/settings; `updated_at` is null until the first change. */
export function settingsResource(m: MerchantRecord) {
  return {
    merchant_id: m.id,
    customer_pays_fees: m.customer_pays_fees,
    settings_version: m.settings_version,
    updated_at: m.settings_updated_at,
  };
}
