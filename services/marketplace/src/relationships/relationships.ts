import {
  ERROR_CATALOGUE,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  type Mode,
  type OutboxEntry,
} from '@ppay/kernel';
import type { KycCaseFacts, RelationshipChanged } from '@ppay/kernel';
import { percentToRate, resolveCommission, type CommissionSource } from './commission';
import {
  effectiveStatus,
  INVITATION_TTL_MS,
  type InvitationDirection,
  type InvitationRecord,
  type InvitationRepository,
  type InvitationStatus,
} from './invitations';
import {
  marketplaceIn,
  type MarketplaceSettings,
  type MerchantRecord,
  type MerchantService,
  type PayoutEligibilityByMode,
} from './merchants';
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

/** Create a new business that joins the marketplace at once (POST /marketplace/merchants). */
export interface LinkInput {
  email?: string;
  business_name?: string;
  country?: string;
  baseline_currency?: string;
  /** Percent 0..100; absent = the marketplace default applies. */
  commission_rate?: number;
}

/** Invite an existing business by its id (POST /marketplace/merchants with merchant_id). */
export interface InviteInput extends Omit<LinkInput, 'commission_rate'> {
  merchant_id: number;
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
export function relationshipResource(v: RelationshipView) {
  const { invitation_id: _invitation, ...relationship } = v.relationship;
  const payouts = v.payout_eligibility[relationship.mode];
  return {
    ...relationship,
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
/** An acceptance interrupted by a crash is finished by the sweep once it is this old. */
export const ACCEPTANCE_REPAIR_AFTER_MS = 30_000;

function changeEvent(rel: RelationshipRecord, change: RelationshipChanged['change']): OutboxEntry {
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

/**
 * Marketplace setup, operator ↔ sub-merchant relationships and invitations (spec 2.6, 3.5, 4.9) and
 * the split lookup payments uses (spec 4.1 "Marketplace split"). Every operation is scoped to the
 * calling operator AND the mode of its key: sandbox and live are separate marketplaces, so nothing a
 * sandbox key does reaches a live split. Another marketplace's relationship (or the same operator's
 * in the other mode) is indistinguishable from none (404).
 */
export class MarketplaceService {
  constructor(
    private readonly merchants: MerchantService,
    private readonly relationships: RelationshipRepository,
    private readonly invitations: InvitationRepository,
    private readonly onSyncError: (err: unknown, merchantId: number) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** POST /marketplace/setup: creates, or on a repeated call updates, the operator's marketplace in `mode`. */
  async setup(
    operatorId: number,
    mode: Mode,
    input: SetupInput,
  ): Promise<{ operator: MerchantRecord; settings: MarketplaceSettings }> {
    const operator = await this.operator(operatorId);
    const name = (input.marketplace_name ?? '').trim();
    if (!name || name.length > MAX_NAME) {
      throw new PlatformError('VALIDATION_FAILED', `marketplace_name must be 1 to ${MAX_NAME} characters`, {
        param: 'marketplace_name',
      });
    }
    const current = marketplaceIn(operator, mode);
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
        mode,
        name: settings.name,
        default_commission_rate: settings.default_commission_rate,
        status: settings.status,
      },
      { merchantId: operator.id, mode },
    );
    const updated = await this.merchants.setMarketplace(operator.id, mode, settings, event);
    return { operator: updated, settings: marketplaceIn(updated, mode) ?? settings };
  }

  /** POST /marketplace/merchants with new business fields: a new business joins at once, in `mode`. */
  async link(operatorId: number, mode: Mode, input: LinkInput): Promise<RelationshipView> {
    const operator = await this.operatorWithMarketplace(operatorId, mode);
    const commission =
      input.commission_rate !== undefined ? percentToRate(input.commission_rate, 'commission_rate') : null;
    const merchant = await this.createBusiness(operator.id, mode, input);
    const now = this.now();
    const record: RelationshipRecord = {
      id: await this.relationships.nextId(),
      marketplace_id: operator.id,
      merchant_id: merchant.id,
      mode,
      commission_rate: commission,
      status: 'active',
      invite_token: null,
      invited_at: null,
      joined_at: now,
      invitation_id: null,
      created_at: now,
      updated_at: now,
      version: 1,
    };
    await this.relationships.insert(record, changeEvent(record, 'created'));
    await this.syncQuietly(record);
    return this.view(record, merchant, operator);
  }

  /**
   * POST /marketplace/merchants with merchant_id: invites an existing business. The answer is the
   * same whether the id exists, is an operator, or is already someone's sub-merchant (nothing is
   * looked up, so neither the status nor the timing tells): such an invitation can never be
   * accepted and expires. A repeated invitation while one is pending returns the pending one.
   */
  async invite(operatorId: number, mode: Mode, input: InviteInput): Promise<InvitationRecord> {
    const extra = NEW_BUSINESS_FIELDS.find((f) => input[f] !== undefined && input[f] !== '');
    if (extra) {
      throw new PlatformError('VALIDATION_FAILED', 'Send either merchant_id or the new business fields, not both', {
        param: extra,
      });
    }
    const operator = await this.operatorWithMarketplace(operatorId, mode);
    if (input.merchant_id === operator.id) {
      throw new PlatformError('VALIDATION_FAILED', 'A marketplace cannot invite its own business', {
        param: 'merchant_id',
      });
    }
    const commission =
      input.commission_rate !== undefined ? percentToRate(input.commission_rate, 'commission_rate') : null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = this.now();
      const record: InvitationRecord = {
        id: prefixedId('inv', 32),
        marketplace_id: operator.id,
        marketplace_name: marketplaceIn(operator, mode)!.name,
        merchant_id: input.merchant_id,
        mode,
        commission_rate: commission,
        status: 'pending',
        invited_at: now,
        expires_at: new Date(now.getTime() + INVITATION_TTL_MS),
        responded_at: null,
        relationship_id: null,
        relationship_written: false,
      };
      if (await this.invitations.insertPending(record)) return record;
      const open = await this.invitations.findOpen(operator.id, input.merchant_id, mode);
      if (open && effectiveStatus(open, now) === 'pending') return open;
      // Expired but not swept yet: close it, then the new invitation takes its place.
      if (open) await this.invitations.closePending(open.id, 'expired', now);
    }
    throw new PlatformError('CONFLICT');
  }

  /**
   * The invited business accepts with its own key, in the invitation's mode. Two documents change,
   * in this order: the invitation (pending → accepted, reserving the relationship id) then the
   * relationship insert. A crash between them is finished by a retry or the sweep
   * (completeAcceptances), and until then there is no relationship, so no split (docs/architecture.md).
   */
  async acceptInvitation(merchantId: number, mode: Mode, token: string): Promise<RelationshipView> {
    const inv = await this.invitationFor(merchantId, mode, token);
    if (inv.status === 'accepted' && inv.relationship_id !== null) return this.finishAcceptance(inv);
    this.requirePending(inv);
    const [merchant, operator] = await Promise.all([this.merchants.fresh(merchantId), this.invitingOperator(inv)]);
    if (merchant.is_marketplace_operator) {
      throw new PlatformError('VALIDATION_FAILED', 'A marketplace operator cannot be a sub-merchant', {
        param: 'invite_token',
      });
    }
    // The slot is taken only now; a pending invitation never blocked anything.
    if (await this.relationships.findByMerchant(merchantId, mode)) throw this.alreadyLinked();
    const accepted = await this.invitations.closePending(inv.id, 'accepted', this.now(), {
      notExpiredAt: this.now(),
      relationshipId: await this.relationships.nextId(),
    });
    if (!accepted) throw await this.closedNow(inv);
    return this.finishAcceptance(accepted, operator, merchant);
  }

  /** The invited business declines (its own key, the invitation's mode). */
  async declineInvitation(merchantId: number, mode: Mode, token: string): Promise<InvitationRecord> {
    const inv = await this.invitationFor(merchantId, mode, token);
    return this.close(inv, 'declined');
  }

  /** The operator withdraws a pending invitation. */
  async cancelInvitation(operatorId: number, mode: Mode, token: string): Promise<InvitationRecord> {
    const operator = await this.operator(operatorId);
    const inv = token ? await this.invitations.findById(token) : null;
    if (!inv || inv.marketplace_id !== operator.id || inv.mode !== mode) {
      throw new PlatformError('INVITATION_NOT_FOUND', undefined, { param: 'invite_token' });
    }
    return this.close(inv, 'cancelled');
  }

  /** Invitations the operator sent, or the business received, in `mode`. */
  async listInvitations(
    merchantId: number,
    mode: Mode,
    direction: InvitationDirection,
    status: InvitationStatus | undefined,
    page: number,
    limit: number,
  ): Promise<{ items: InvitationRecord[]; total: number }> {
    if (direction === 'sent') await this.operator(merchantId);
    return this.invitations.list({ direction, merchant_id: merchantId, mode, status }, this.now(), page, limit);
  }

  /** Sweep job: stores `expired` on pending invitations past their expiry. */
  async expireInvitations(limit = 100): Promise<number> {
    const now = this.now();
    let expired = 0;
    for (const inv of await this.invitations.dueForExpiry(now, limit)) {
      if (await this.invitations.closePending(inv.id, 'expired', now)) expired++;
    }
    return expired;
  }

  /** Sweep job: finishes acceptances interrupted between the invitation and the relationship write. */
  async completeAcceptances(limit = 100): Promise<number> {
    const before = new Date(this.now().getTime() - ACCEPTANCE_REPAIR_AFTER_MS);
    let repaired = 0;
    for (const inv of await this.invitations.unfinishedAcceptances(before, limit)) {
      try {
        await this.finishAcceptance(inv);
        repaired++;
      } catch (err) {
        // Reopened (slot taken meanwhile) or the operator is gone: nothing more to do for it.
        if (!(err instanceof PlatformError) || ERROR_CATALOGUE[err.code].group === 'infrastructure') throw err;
      }
    }
    return repaired;
  }

  /** Update commission: a percent sets the per-merchant rate, undefined falls back to the default. */
  async updateCommission(
    operatorId: number,
    mode: Mode,
    merchantId: number,
    percent: number | undefined,
  ): Promise<RelationshipView> {
    const operator = await this.operator(operatorId);
    const rate = percent !== undefined ? percentToRate(percent, 'commission_rate') : null;
    const rel = await this.owned(operator.id, merchantId, mode);
    const updated =
      rel.commission_rate === rate
        ? rel
        : await this.change(rel, [rel.status], { commission_rate: rate }, 'commission_updated');
    return this.view(updated, await this.merchants.get(merchantId), operator);
  }

  async list(
    operatorId: number,
    mode: Mode,
    status: RelationshipStatus,
    page: number,
    limit: number,
  ): Promise<{ items: RelationshipView[]; total: number }> {
    const operator = await this.operator(operatorId);
    const { items, total } = await this.relationships.list(operator.id, mode, status, page, limit);
    const subs = await this.merchants.manyOf(items.map((r) => r.merchant_id));
    return { items: items.map((r) => this.view(r, subs.get(r.merchant_id), operator)), total };
  }

  /** DELETE /marketplace/merchants/{id} (spec 3.5): only an active relationship is suspended. */
  async remove(operatorId: number, mode: Mode, merchantId: number): Promise<RelationshipRecord> {
    const operator = await this.operator(operatorId);
    const rel = await this.owned(operator.id, merchantId, mode);
    if (rel.status !== 'active') throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    return this.change(rel, ['active'], { status: 'suspended' }, 'suspended');
  }

  /** Reactivate merchant (spec 3.5): suspended → active; already active answers unchanged. */
  async reactivate(operatorId: number, mode: Mode, merchantId: number): Promise<RelationshipView> {
    const operator = await this.operator(operatorId);
    const rel = await this.owned(operator.id, merchantId, mode);
    const updated =
      rel.status === 'active' ? rel : await this.change(rel, ['suspended'], { status: 'active' }, 'reactivated');
    if (updated === rel) await this.syncQuietly(rel);
    return this.view(updated, await this.merchants.get(merchantId), operator);
  }

  /**
   * The split lookup (spec 4.1 steps 3–4) in the mode of the charge. RELATIONSHIP_NOT_FOUND when the
   * sub-merchant has no relationship with this operator in that mode (another marketplace's merchant
   * looks the same); otherwise `active` says whether the split applies, with the rate resolved
   * merchant → default (of that mode) → 0.
   */
  async resolveSplit(operatorId: number, subMerchantId: number, mode: Mode): Promise<SplitResolution> {
    const operator = await this.operator(operatorId);
    const rel = await this.owned(operator.id, subMerchantId, mode);
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

  /**
   * DescribeSubMerchant: the relationship between the operator and the sub-merchant (whatever its
   * status; `active` says whether KYC and payout calls may proceed) and the business facts kyc needs.
   * RELATIONSHIP_NOT_FOUND for no relationship or another marketplace's merchant, as everywhere.
   */
  async describeSubMerchant(operatorId: number, subMerchantId: number, mode: Mode): Promise<SubMerchantProfile> {
    const operator = await this.operator(operatorId);
    const rel = await this.owned(operator.id, subMerchantId, mode);
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
   * Brings the sub-merchant's cached marketplace fields of one mode in line with its relationship
   * (the source of truth). Runs right after every change and again from the relationship_changed
   * consumer, so a crash between the two writes is repaired; versions make replays and races harmless.
   */
  async syncMerchant(merchantId: number, mode: Mode): Promise<void> {
    const rel = await this.relationships.findByMerchant(merchantId, mode);
    if (rel) await this.sync(rel);
  }

  private async sync(rel: RelationshipRecord): Promise<void> {
    const active = rel.status === 'active';
    await this.merchants.syncMembership(rel.merchant_id, rel.mode, {
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

  /**
   * Second write of an acceptance: the relationship with the id reserved on the invitation, so a
   * retry after a crash inserts nothing twice. If the business joined another marketplace in this
   * mode meanwhile, the invitation is reopened and the acceptance refused.
   */
  private async finishAcceptance(
    inv: InvitationRecord,
    knownOperator?: MerchantRecord,
    knownMerchant?: MerchantRecord,
  ): Promise<RelationshipView> {
    const relationshipId = inv.relationship_id!;
    const [operator, merchant] = await Promise.all([
      knownOperator ?? this.merchants.fresh(inv.marketplace_id),
      knownMerchant ?? this.merchants.fresh(inv.merchant_id),
    ]);
    let record = await this.relationships.findById(relationshipId);
    if (!record) {
      const joined = inv.responded_at ?? this.now();
      record = {
        id: relationshipId,
        marketplace_id: inv.marketplace_id,
        merchant_id: inv.merchant_id,
        mode: inv.mode,
        commission_rate: inv.commission_rate,
        status: 'active',
        invite_token: null,
        invited_at: inv.invited_at,
        joined_at: joined,
        invitation_id: inv.id,
        created_at: joined,
        updated_at: joined,
        version: 1,
      };
      try {
        await this.relationships.insert(record, changeEvent(record, 'accepted'));
      } catch (err) {
        if (err instanceof PlatformError && err.code === 'MERCHANT_ALREADY_LINKED') {
          await this.invitations.reopenAcceptance(inv.id, relationshipId);
          throw this.alreadyLinked();
        }
        throw err;
      }
    }
    await this.invitations.markRelationshipWritten(inv.id);
    await this.syncQuietly(record);
    return this.view(record, merchant, operator);
  }

  private async invitationFor(merchantId: number, mode: Mode, token: string): Promise<InvitationRecord> {
    const inv = token ? await this.invitations.findById(token) : null;
    // Someone else's invitation, or one of the other mode, is indistinguishable from none.
    if (!inv || inv.merchant_id !== merchantId || inv.mode !== mode) {
      throw new PlatformError('INVITATION_NOT_FOUND', undefined, { param: 'invite_token' });
    }
    return inv;
  }

  private async invitingOperator(inv: InvitationRecord): Promise<MerchantRecord> {
    const operator = await this.merchants.fresh(inv.marketplace_id).catch((err: unknown) => {
      if (err instanceof PlatformError && err.code === 'MERCHANT_NOT_FOUND') return null;
      throw err;
    });
    if (!operator?.is_marketplace_operator || !marketplaceIn(operator, inv.mode)) {
      throw new PlatformError('INVITATION_NOT_FOUND', undefined, { param: 'invite_token' });
    }
    return operator;
  }

  private requirePending(inv: InvitationRecord): void {
    const status = effectiveStatus(inv, this.now());
    if (status !== 'pending') {
      throw new PlatformError('INVITATION_CLOSED', undefined, {
        param: 'invite_token',
        detail: `The invitation is ${status}`,
      });
    }
  }

  private async close(inv: InvitationRecord, to: 'declined' | 'cancelled'): Promise<InvitationRecord> {
    this.requirePending(inv);
    const now = this.now();
    const closed = await this.invitations.closePending(inv.id, to, now, { notExpiredAt: now });
    if (!closed) throw await this.closedNow(inv);
    return closed;
  }

  /** Why a conditional write on a pending invitation found nothing: it was closed meanwhile. */
  private async closedNow(inv: InvitationRecord): Promise<PlatformError> {
    try {
      this.requirePending((await this.invitations.findById(inv.id)) ?? inv);
    } catch (err) {
      return err as PlatformError;
    }
    return new PlatformError('CONFLICT');
  }

  private alreadyLinked(): PlatformError {
    return new PlatformError('MERCHANT_ALREADY_LINKED', undefined, {
      param: 'invite_token',
      detail: 'The business already belongs to a marketplace in this mode',
    });
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
      const current = await this.relationships.findByMerchant(rel.merchant_id, rel.mode);
      if (!current || current.marketplace_id !== rel.marketplace_id) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
      throw new PlatformError('CONFLICT');
    }
    await this.syncQuietly(updated);
    return updated;
  }

  private async createBusiness(operatorId: number, mode: Mode, input: LinkInput): Promise<MerchantRecord> {
    for (const field of ['email', 'country', 'baseline_currency'] as const) {
      if (!input[field]) {
        throw new PlatformError(
          'VALIDATION_FAILED',
          `${field} is required (or send merchant_id to invite an existing business)`,
          { param: field },
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
      // A business this operator created itself, not yet linked in this mode: a retry after a crash
      // between creating the business and its relationship, or the operator adding it in its other
      // mode (a business made with a sandbox key joins live the same way, with the live key).
      const existing = await this.merchants.findByEmail(input.email!);
      if (
        existing?.created_by_marketplace_id === operatorId &&
        !(await this.relationships.findByMerchant(existing.id, mode))
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

  private async operatorWithMarketplace(operatorId: number, mode: Mode): Promise<MerchantRecord> {
    const operator = await this.operator(operatorId);
    if (!marketplaceIn(operator, mode)) throw new PlatformError('MARKETPLACE_NOT_SET_UP');
    return operator;
  }

  /** The operator's relationship with `merchantId` in `mode`, whatever its status; 404 for anyone else's. */
  private async owned(operatorId: number, merchantId: number, mode: Mode): Promise<RelationshipRecord> {
    const rel = await this.relationships.findByMerchant(merchantId, mode);
    if (!rel || rel.marketplace_id !== operatorId) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    return rel;
  }
}
