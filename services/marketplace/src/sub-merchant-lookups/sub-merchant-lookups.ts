import type { Mode } from '@ppay/kernel';
import { marketplaceIn } from '../merchants/merchant';
import type { MerchantService } from '../merchants/merchants';
import { resolveCommission, type CommissionSource } from '../relationships/commission';
import type { RelationshipStatus } from '../relationships/relationship';
import type { RelationshipService } from '../relationships/relationships';

/** What payments learns when a charge names a sub-merchant (ResolveSplit). */
export interface SplitResolution {
  active: boolean;
  status: RelationshipStatus;
  relationship_id: number;
  marketplace_id: number;
  commission_rate: string;
  commission_source: CommissionSource;
}

/** What kyc needs to know about a sub-merchant before a KYC or payout call (DescribeSubMerchant). */
export interface SubMerchantProfile {
  active: boolean;
  status: RelationshipStatus;
  relationship_id: number;
  marketplace_id: number;
  /** Null when the business record is gone (spec 7.4 "Merchant portfolio not found"). */
  merchant: { id: number; country: string; baseline_currency: string; business_name: string } | null;
}

/**
 * What sibling services ask about an operator's sub-merchant, in the mode of their call: payments
 * for a split (spec 4.1 "Marketplace split"), kyc before every KYC and payout call. Both read the
 * relationship document, the source of truth, whatever its status (`active` says whether the split
 * or the call may proceed); RELATIONSHIP_NOT_FOUND for no relationship or another marketplace's
 * merchant, as everywhere.
 */
export class SubMerchantLookups {
  constructor(
    private readonly merchants: MerchantService,
    private readonly relationships: RelationshipService,
  ) {}

  /**
   * The split lookup (spec 4.1 steps 3–4) in the mode of the charge, with the rate resolved
   * merchant → default (of that mode) → 0.
   */
  async resolveSplit(operatorId: number, subMerchantId: number, mode: Mode): Promise<SplitResolution> {
    const operator = await this.merchants.requireOperator(operatorId);
    const rel = await this.relationships.owned(operator.id, subMerchantId, mode);
    const { rate, source } = resolveCommission(
      rel.commission_rate,
      marketplaceIn(operator, mode)?.default_commission_rate,
    );
    return {
      active: rel.status === 'active',
      status: rel.status,
      relationship_id: rel.id,
      marketplace_id: rel.marketplace_id,
      commission_rate: rate,
      commission_source: source,
    };
  }

  /** The relationship and the business facts kyc needs (country, currency, name). */
  async describeSubMerchant(operatorId: number, subMerchantId: number, mode: Mode): Promise<SubMerchantProfile> {
    const operator = await this.merchants.requireOperator(operatorId);
    const rel = await this.relationships.owned(operator.id, subMerchantId, mode);
    const merchant = await this.merchants.freshOrNull(subMerchantId);
    return {
      active: rel.status === 'active',
      status: rel.status,
      relationship_id: rel.id,
      marketplace_id: rel.marketplace_id,
      merchant: merchant && {
        id: merchant.id,
        country: merchant.country,
        baseline_currency: merchant.baseline_currency,
        business_name: merchant.business_name,
      },
    };
  }
}
