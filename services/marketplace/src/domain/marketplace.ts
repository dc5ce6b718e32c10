import { outboxEvent, PlatformError, prefixedId, SUBJECTS, type OutboxEntry } from '@ppay/kernel';
import type { KycCaseFacts, Mode, RelationshipChanged } from '@ppay/kernel';
import { percentToRate, resolveCommission, type CommissionSource } from './commission';
import type { MarketplaceSettings, MerchantRecord, MerchantService, PayoutEligibilityByMode } from './merchants';
import type {
  RelationshipChanges,
  RelationshipRecord,
  RelationshipRepository,
  RelationshipStatus,
} from './relationships';

export interface SetupInput {
  marketplace_name: string;
  /** Percent 0..100; absent on a re-setup keeps the current default. */
  default_commission_rate?: number;
}

export interface LinkInput {
  /** Link (invite) an existing business… */
  merchant_id?: number;
  /** …or create a new one with these details. */
  email?: string;
  business_name?: string;
  country?: string;
  baseline_currency?: string;
  /** Percent 0..100; absent = the marketplace default applies. */
  commission_rate?: number;
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

/**
 * The spec 2.6 list item: the relationship with its effective commission (the stored per-merchant
 * rate is null when the default applies), the merchant's e-mail as `merchant.educator_email`, and
 * (additive) its KYC status and payout eligibility in the caller's mode.
 */
export function relationshipResource(v: RelationshipView, mode?: Mode) {
  const payouts = mode ? v.payout_eligibility[mode] : undefined;
  return {
    ...v.relationship,
    commission_rate: v.commission_rate,
    commission_source: v.commission_source,
    merchant: { id: v.relationship.merchant_id, educator_email: v.merchant_email },
    kyc_status: payouts?.kyc_status ?? 'not_started',
    payouts_enabled: payouts?.payouts_enabled ?? false,
  };
}

/** What kyc needs to know about a sub-merchant before a KYC or payout call (see DescribeSubMerchant). */
export interface SubMerchantProfile {
  active: boolean;
  status: RelationshipStatus;
  relationship_id: number;
  marketplace_id: number;
  /** Null when the business record is gone (spec 7.4 "Merchant portfolio not found"). */
  merchant: { id: number; country: string; baseline_currency: string; business_name: string } | null;
}

/** Spec 4.9 setup response: `marketplace_id` is the operator's business id as a string. */
export function marketplaceResource(operator: MerchantRecord, settings: MarketplaceSettings) {
  return {
    ...settings,
    marketplace_id: String(operator.id),
    marketplace_name: settings.name,
  };
}

export interface SplitResolution {
  active: boolean;
  status: RelationshipStatus;
  relationship_id: number;
  marketplace_id: number;
  commission_rate: string;
  commission_source: CommissionSource;
}

const NEW_BUSINESS_FIELDS = ['email', 'business_name', 'country', 'baseline_currency'] as const;
const MAX_NAME = 200;

function changeEvent(rel: RelationshipRecord, change: RelationshipChanged['change']): OutboxEntry {
  return outboxEvent(
    SUBJECTS.relationshipChanged,
    {
      relationship_id: rel.id,
      marketplace_id: rel.marketplace_id,
      merchant_id: rel.merchant_id,
      status: rel.status,
      commission_rate: rel.commission_rate,
      version: rel.version,
      change,
    },
    { merchantId: rel.marketplace_id },
  );
}

/**
 * Marketplace setup and operator ↔ sub-merchant relationships (spec 2.6, 3.5, 4.9) and the split
 * lookup payments uses (spec 4.1 "Marketplace split"). Every partner operation is scoped to the
 * calling operator: another marketplace's relationship is indistinguishable from none (404).
 */
export class MarketplaceService {
  constructor(
    private readonly merchants: MerchantService,
    private readonly relationships: RelationshipRepository,
    private readonly onSyncError: (err: unknown, merchantId: number) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** POST /marketplace/setup: creates, or on a repeated call updates, the operator's marketplace. */
  async setup(
    operatorId: number,
    input: SetupInput,
  ): Promise<{ operator: MerchantRecord; settings: MarketplaceSettings }> {
    const operator = await this.operator(operatorId);
    const name = (input.marketplace_name ?? '').trim();
    if (!name || name.length > MAX_NAME) {
      throw new PlatformError('VALIDATION_FAILED', `marketplace_name must be 1 to ${MAX_NAME} characters`, {
        param: 'marketplace_name',
      });
    }
    const current = operator.marketplace ?? null;
    const now = this.now();
    const settings: MarketplaceSettings = {
      name,
      default_commission_rate:
        input.default_commission_rate !== undefined
          ? percentToRate(input.default_commission_rate, 'default_commission_rate')
          : (current?.default_commission_rate ?? null),
      status: 'active',
      created_at: current?.created_at ?? now,
      updated_at: now,
    };
    const event = outboxEvent(
      SUBJECTS.marketplaceUpdated,
      {
        marketplace_id: operator.id,
        name: settings.name,
        default_commission_rate: settings.default_commission_rate,
        status: settings.status,
      },
      { merchantId: operator.id },
    );
    const updated = await this.merchants.setMarketplace(operator.id, settings, event);
    return { operator: updated, settings: updated.marketplace ?? settings };
  }

  /**
   * POST /marketplace/merchants. New business fields create a non-operator merchant that joins
   * active at once; `merchant_id` invites an existing business, which stays pending until that
   * business accepts with its own key (acceptInvitation).
   */
  async link(operatorId: number, input: LinkInput): Promise<RelationshipView> {
    const operator = await this.operatorWithMarketplace(operatorId);
    const commission =
      input.commission_rate !== undefined ? percentToRate(input.commission_rate, 'commission_rate') : null;
    const now = this.now();
    let merchant: MerchantRecord;
    let invited: boolean;
    if (input.merchant_id !== undefined && input.merchant_id !== 0) {
      const extra = NEW_BUSINESS_FIELDS.find((f) => input[f] !== undefined && input[f] !== '');
      if (extra) {
        throw new PlatformError('VALIDATION_FAILED', 'Send either merchant_id or the new business fields, not both', {
          param: extra,
        });
      }
      if (input.merchant_id === operator.id) {
        throw new PlatformError('VALIDATION_FAILED', 'A marketplace cannot link its own business', {
          param: 'merchant_id',
        });
      }
      merchant = await this.merchants.fresh(input.merchant_id);
      if (merchant.is_marketplace_operator) {
        throw new PlatformError('VALIDATION_FAILED', 'A marketplace operator cannot be a sub-merchant', {
          param: 'merchant_id',
        });
      }
      invited = true;
    } else {
      merchant = await this.createBusiness(operator.id, input);
      invited = false;
    }
    const record: RelationshipRecord = {
      id: await this.relationships.nextId(),
      marketplace_id: operator.id,
      merchant_id: merchant.id,
      commission_rate: commission,
      status: invited ? 'pending' : 'active',
      invite_token: invited ? prefixedId('inv', 32) : null,
      invited_at: invited ? now : null,
      joined_at: invited ? null : now,
      created_at: now,
      updated_at: now,
      version: 1,
    };
    await this.relationships.insert(record, changeEvent(record, invited ? 'invited' : 'created'));
    await this.syncQuietly(record);
    return this.view(record, merchant, operator);
  }

  /** The invited business (its own API key) accepts: pending → active. */
  async acceptInvitation(merchantId: number, token: string): Promise<RelationshipView> {
    const rel = token ? await this.relationships.findByInviteToken(token) : null;
    if (!rel || rel.merchant_id !== merchantId || rel.status !== 'pending') {
      throw new PlatformError('INVITATION_NOT_FOUND', undefined, { param: 'invite_token' });
    }
    const now = this.now();
    const updated = await this.change(
      rel,
      ['pending'],
      { status: 'active', joined_at: now, invite_token: null },
      'accepted',
    );
    const [merchant, operator] = await Promise.all([
      this.merchants.get(merchantId),
      this.merchants.fresh(rel.marketplace_id),
    ]);
    return this.view(updated, merchant, operator);
  }

  /** Update commission: a percent sets the per-merchant rate, undefined falls back to the default. */
  async updateCommission(
    operatorId: number,
    merchantId: number,
    percent: number | undefined,
  ): Promise<RelationshipView> {
    const operator = await this.operator(operatorId);
    const rate = percent !== undefined ? percentToRate(percent, 'commission_rate') : null;
    const rel = await this.owned(operator.id, merchantId);
    const updated =
      rel.commission_rate === rate
        ? rel
        : await this.change(rel, [rel.status], { commission_rate: rate }, 'commission_updated');
    return this.view(updated, await this.merchants.get(merchantId), operator);
  }

  async list(
    operatorId: number,
    status: RelationshipStatus,
    page: number,
    limit: number,
  ): Promise<{ items: RelationshipView[]; total: number }> {
    const operator = await this.operator(operatorId);
    const { items, total } = await this.relationships.list(operator.id, status, page, limit);
    const subs = await this.merchants.manyOf(items.map((r) => r.merchant_id));
    return { items: items.map((r) => this.view(r, subs.get(r.merchant_id), operator)), total };
  }

  /** DELETE /marketplace/merchants/{id} (spec 3.5): only an active relationship is suspended. */
  async remove(operatorId: number, merchantId: number): Promise<RelationshipRecord> {
    const operator = await this.operator(operatorId);
    const rel = await this.owned(operator.id, merchantId);
    if (rel.status !== 'active') throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    return this.change(rel, ['active'], { status: 'suspended' }, 'suspended');
  }

  /** Reactivate merchant (spec 3.5): suspended → active; already active answers unchanged. */
  async reactivate(operatorId: number, merchantId: number): Promise<RelationshipView> {
    const operator = await this.operator(operatorId);
    const rel = await this.owned(operator.id, merchantId);
    if (rel.status === 'pending') {
      throw new PlatformError('RELATIONSHIP_NOT_FOUND', 'Suspended merchant relationship not found', {
        detail: 'The business has not accepted the invitation yet',
      });
    }
    const updated =
      rel.status === 'active' ? rel : await this.change(rel, ['suspended'], { status: 'active' }, 'reactivated');
    if (updated === rel) await this.syncQuietly(rel);
    return this.view(updated, await this.merchants.get(merchantId), operator);
  }

  /**
   * The split lookup (spec 4.1 steps 3–4). RELATIONSHIP_NOT_FOUND when the sub-merchant has no
   * relationship with this operator (another marketplace's merchant looks the same); otherwise
   * `active` says whether the split applies, with the rate resolved merchant → default → 0.
   */
  async resolveSplit(operatorId: number, subMerchantId: number): Promise<SplitResolution> {
    const operator = await this.operator(operatorId);
    const rel = await this.relationships.findByMerchant(subMerchantId);
    if (!rel || rel.marketplace_id !== operator.id) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    const { rate, source } = resolveCommission(rel.commission_rate, operator.marketplace?.default_commission_rate);
    return {
      active: rel.status === 'active',
      status: rel.status,
      relationship_id: rel.id,
      marketplace_id: rel.marketplace_id,
      commission_rate: rate,
      commission_source: source,
    };
  }

  /**
   * DescribeSubMerchant: the relationship between the operator and the sub-merchant (whatever its
   * status; `active` says whether KYC and payout calls may proceed) and the business facts kyc needs.
   * RELATIONSHIP_NOT_FOUND for no relationship or another marketplace's merchant, as everywhere.
   */
  async describeSubMerchant(operatorId: number, subMerchantId: number): Promise<SubMerchantProfile> {
    const operator = await this.operator(operatorId);
    const rel = await this.owned(operator.id, subMerchantId);
    const merchant = await this.merchants.fresh(subMerchantId).catch((err: unknown) => {
      if (err instanceof PlatformError && err.code === 'MERCHANT_NOT_FOUND') return null;
      throw err;
    });
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

  /** Records a KYC event's outcome (kyc.* consumer); older versions than the stored one are ignored. */
  async recordKycOutcome(facts: KycCaseFacts, occurredAt: Date): Promise<boolean> {
    return this.merchants.recordPayoutEligibility(facts.merchant_id, facts.mode, {
      kyc_status: facts.status,
      payouts_enabled: facts.payout_eligible,
      settlement_currency: facts.settlement_currency,
      submission_id: facts.submission_id,
      version: facts.version,
      updated_at: occurredAt,
    });
  }

  /**
   * Brings the sub-merchant's cached marketplace fields in line with its relationship (the source of
   * truth). Runs right after every change and again from the relationship_changed consumer, so a
   * crash between the two writes is repaired; versions make replays and races harmless.
   */
  async syncMerchant(merchantId: number): Promise<void> {
    const rel = await this.relationships.findByMerchant(merchantId);
    if (rel) await this.sync(rel);
  }

  private async sync(rel: RelationshipRecord): Promise<void> {
    const active = rel.status === 'active';
    await this.merchants.syncMembership(rel.merchant_id, {
      marketplace_id: active ? rel.marketplace_id : null,
      marketplace_commission_rate: active ? rel.commission_rate : null,
      relationship_id: rel.id,
      version: rel.version,
    });
  }

  private async syncQuietly(rel: RelationshipRecord): Promise<void> {
    try {
      await this.sync(rel);
    } catch (err) {
      // The relationship is written; the relationship_changed consumer repeats this sync.
      this.onSyncError(err, rel.merchant_id);
    }
  }

  private async change(
    rel: RelationshipRecord,
    fromStatuses: RelationshipStatus[],
    changes: RelationshipChanges,
    change: RelationshipChanged['change'],
  ): Promise<RelationshipRecord> {
    const next: RelationshipRecord = { ...rel, ...changes, updated_at: this.now(), version: rel.version + 1 };
    const updated = await this.relationships.update(
      rel,
      fromStatuses,
      { ...changes, updated_at: next.updated_at },
      changeEvent(next, change),
    );
    if (!updated) {
      // Someone else changed it first: report what is true now rather than guess.
      const current = await this.relationships.findByMerchant(rel.merchant_id);
      if (!current || current.marketplace_id !== rel.marketplace_id) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
      throw new PlatformError('CONFLICT');
    }
    await this.syncQuietly(updated);
    return updated;
  }

  private async createBusiness(operatorId: number, input: LinkInput): Promise<MerchantRecord> {
    for (const field of ['email', 'country', 'baseline_currency'] as const) {
      if (!input[field]) {
        throw new PlatformError(
          'VALIDATION_FAILED',
          `${field} is required (or send merchant_id to link an existing business)`,
          {
            param: field,
          },
        );
      }
    }
    try {
      return await this.merchants.create({
        email: input.email!,
        business_name: input.business_name,
        country: input.country!,
        baseline_currency: input.baseline_currency!,
        is_marketplace_operator: false,
        created_by_marketplace_id: operatorId,
      });
    } catch (err) {
      if (!(err instanceof PlatformError) || err.code !== 'ALREADY_EXISTS') throw err;
      // A retry after a crash between creating the business and its relationship: finish the job.
      const existing = await this.merchants.findByEmail(input.email!);
      if (
        existing?.created_by_marketplace_id === operatorId &&
        !(await this.relationships.findByMerchant(existing.id))
      ) {
        return existing;
      }
      throw new PlatformError('ALREADY_EXISTS', err.message, {
        param: 'email',
        detail: 'To add an existing business, send its merchant_id instead',
      });
    }
  }

  private view(
    rel: RelationshipRecord,
    merchant: MerchantRecord | undefined,
    operator: MerchantRecord,
  ): RelationshipView {
    const { rate, source } = resolveCommission(rel.commission_rate, operator.marketplace?.default_commission_rate);
    return {
      relationship: rel,
      merchant_email: merchant?.email ?? '',
      payout_eligibility: merchant?.payout_eligibility ?? {},
      commission_rate: rate,
      commission_source: source,
    };
  }

  /** The caller must be a marketplace operator (spec 4.9, 5.5). */
  private async operator(operatorId: number): Promise<MerchantRecord> {
    const operator = await this.merchants.fresh(operatorId).catch((err: unknown) => {
      if (err instanceof PlatformError && err.code === 'MERCHANT_NOT_FOUND') {
        throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
      }
      throw err;
    });
    if (!operator.is_marketplace_operator) throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    return operator;
  }

  private async operatorWithMarketplace(operatorId: number): Promise<MerchantRecord> {
    const operator = await this.operator(operatorId);
    if (!operator.marketplace) throw new PlatformError('MARKETPLACE_NOT_SET_UP');
    return operator;
  }

  /** The operator's relationship with `merchantId`, whatever its status; 404 for anyone else's. */
  private async owned(operatorId: number, merchantId: number): Promise<RelationshipRecord> {
    const rel = await this.relationships.findByMerchant(merchantId);
    if (!rel || rel.marketplace_id !== operatorId) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    return rel;
  }
}
