import { PlatformError, type Mode, type RelationshipChanged } from '@ppay/kernel';
import { marketplaceIn, type MarketplaceSettings, type MerchantRecord } from '../merchants/merchant';
import type { MerchantService } from '../merchants/merchants';
import type { RelationshipRepository } from '../ports';
import { percentToRate } from './commission';
import { NO_REJOIN_RULE, type RejoinRule } from './rejoin-rule';
import { marketplaceSettings, marketplaceUpdatedEvent, type SetupInput } from './marketplace';
import type { MembershipSync } from './membership-sync';
import {
  joinedRelationship,
  relationshipChangedEvent,
  relationshipView,
  type RelationshipChanges,
  type RelationshipRecord,
  type RelationshipStatus,
  type RelationshipView,
} from './relationship';

/** Create a new business that joins the marketplace at once (POST /marketplace/merchants). */
export interface LinkInput {
  email?: string;
  business_name?: string;
  country?: string;
  baseline_currency?: string;
  /** Percent 0..100; absent = the marketplace default applies. */
  commission_rate?: number;
}

/** The fields that describe a new business (as opposed to an existing one's merchant_id). */
export const NEW_BUSINESS_FIELDS = ['email', 'business_name', 'country', 'baseline_currency'] as const;

/**
 * Marketplace setup and operator ↔ sub-merchant relationships (spec 2.6, 3.5, 4.9): create-or-link,
 * list, commission, suspend and reactivate. Every operation is scoped to the calling operator AND the
 * mode of its key: sandbox and live are separate marketplaces, so nothing a sandbox key does reaches a
 * live split. Another marketplace's relationship (or the same operator's in the other mode) is
 * indistinguishable from none (404).
 */
export class RelationshipService {
  constructor(
    private readonly merchants: MerchantService,
    private readonly relationships: RelationshipRepository,
    private readonly membership: MembershipSync,
    private readonly now: () => Date = () => new Date(),
    private readonly rejoin: RejoinRule = NO_REJOIN_RULE,
  ) {}

  /** POST /marketplace/setup: creates, or on a repeated call updates, the operator's marketplace in `mode`. */
  async setup(
    operatorId: number,
    mode: Mode,
    input: SetupInput,
  ): Promise<{ operator: MerchantRecord; settings: MarketplaceSettings }> {
    const operator = await this.merchants.requireOperator(operatorId);
    const settings = marketplaceSettings(input, marketplaceIn(operator, mode), this.now());
    const event = marketplaceUpdatedEvent(operator.id, mode, settings);
    const updated = await this.merchants.setMarketplace(operator.id, mode, settings, event);
    return { operator: updated, settings: marketplaceIn(updated, mode) ?? settings };
  }

  /**
   * POST /marketplace/merchants with new business fields: a new business joins at once, in `mode`. An
   * e-mail already registered to another business is not an error (that would tell anyone with an
   * operator key which e-mails have accounts): the answer is `registered`, and the caller invites that
   * business instead, which must consent (InvitationService.inviteRegistered, Hardening 2 item 11).
   */
  async create(operatorId: number, mode: Mode, input: LinkInput): Promise<SubMerchantCreation> {
    const operator = await this.merchants.requireMarketplace(operatorId, mode);
    const commission =
      input.commission_rate !== undefined ? percentToRate(input.commission_rate, 'commission_rate') : null;
    const business = await this.createBusiness(operator.id, mode, input);
    if (business.kind === 'registered') return business;
    if (business.kind === 'linked') {
      return { kind: 'created', view: relationshipView(business.relationship, business.merchant, operator) };
    }
    const merchant = business.merchant;
    // One of its own businesses joining this mode (again): not while a deletion of it is finishing.
    if (business.kind === 'rejoining') await this.rejoin.assertMayJoin(merchant.id, mode, this.now());
    const joinedAt = this.now();
    const record = joinedRelationship(
      {
        id: await this.relationships.nextId(),
        marketplace_id: operator.id,
        merchant_id: merchant.id,
        mode,
        commission_rate: commission,
      },
      null,
      joinedAt,
    );
    await this.relationships.insert(record, relationshipChangedEvent(record, 'created'));
    await this.membership.syncQuietly(record);
    return { kind: 'created', view: relationshipView(record, merchant, operator) };
  }

  /**
   * LinkMerchant, kept for gateways of the previous version during a rollout (the gateway now calls
   * CreateSubMerchant): a registered e-mail is a bare 409, naming no field.
   */
  async link(operatorId: number, mode: Mode, input: LinkInput): Promise<RelationshipView> {
    const outcome = await this.create(operatorId, mode, input);
    if (outcome.kind === 'registered') throw new PlatformError('ALREADY_EXISTS');
    return outcome.view;
  }

  /** Update commission: a percent sets the per-merchant rate, undefined falls back to the default. */
  async updateCommission(
    operatorId: number,
    mode: Mode,
    merchantId: number,
    percent: number | undefined,
  ): Promise<RelationshipView> {
    const operator = await this.merchants.requireOperator(operatorId);
    const rel = await this.owned(operator.id, merchantId, mode);
    const rate = percent !== undefined ? percentToRate(percent, 'commission_rate') : null;
    const updated =
      rel.commission_rate === rate
        ? rel
        : await this.change(rel, [rel.status], { commission_rate: rate }, 'commission_updated');
    return relationshipView(updated, await this.merchants.get(merchantId), operator);
  }

  async list(
    operatorId: number,
    mode: Mode,
    status: RelationshipStatus,
    page: number,
    limit: number,
  ): Promise<{ items: RelationshipView[]; total: number }> {
    const operator = await this.merchants.requireOperator(operatorId);
    const { items, total } = await this.relationships.list(operator.id, mode, status, page, limit);
    const subs = await this.merchants.manyOf(items.map((r) => r.merchant_id));
    return { items: items.map((r) => relationshipView(r, subs.get(r.merchant_id), operator)), total };
  }

  /** DELETE /marketplace/merchants/{id} (spec 3.5): only an active relationship is suspended. */
  async remove(operatorId: number, mode: Mode, merchantId: number): Promise<RelationshipRecord> {
    const operator = await this.merchants.requireOperator(operatorId);
    const rel = await this.owned(operator.id, merchantId, mode);
    if (rel.status !== 'active') throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    return this.change(rel, ['active'], { status: 'suspended' }, 'suspended');
  }

  /** Reactivate merchant (spec 3.5): suspended → active; already active answers unchanged. */
  async reactivate(operatorId: number, mode: Mode, merchantId: number): Promise<RelationshipView> {
    const operator = await this.merchants.requireOperator(operatorId);
    const rel = await this.owned(operator.id, merchantId, mode);
    const updated =
      rel.status === 'active' ? rel : await this.change(rel, ['suspended'], { status: 'active' }, 'reactivated');
    if (updated === rel) await this.membership.syncQuietly(rel);
    return relationshipView(updated, await this.merchants.get(merchantId), operator);
  }

  /** The operator's relationship with `merchantId` in `mode`, whatever its status; 404 for anyone else's. */
  async owned(operatorId: number, merchantId: number, mode: Mode): Promise<RelationshipRecord> {
    const rel = await this.relationships.findByMerchant(merchantId, mode);
    if (!rel || rel.marketplace_id !== operatorId) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    return rel;
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
      relationshipChangedEvent(next, change),
    );
    if (!updated) {
      // Someone else changed it first: report what is true now rather than guess.
      const current = await this.relationships.findByMerchant(rel.merchant_id, rel.mode);
      if (!current || current.marketplace_id !== rel.marketplace_id) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
      throw new PlatformError('CONFLICT');
    }
    await this.membership.syncQuietly(updated);
    return updated;
  }

  /**
   * The business the new-business fields describe: created now; or one this operator created itself
   * (a retry after a crash between the business and its relationship, the operator adding it in its
   * other mode, or a plain repeat once it joined: its relationship is answered again); or, for an
   * e-mail registered to any other business, `registered`.
   */
  private async createBusiness(
    operatorId: number,
    mode: Mode,
    input: LinkInput,
  ): Promise<
    | { kind: 'new' | 'rejoining'; merchant: MerchantRecord }
    | { kind: 'linked'; merchant: MerchantRecord; relationship: RelationshipRecord }
    | { kind: 'registered'; merchantId: number }
  > {
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
      const merchant = await this.merchants.create({
        email: input.email!,
        business_name: input.business_name,
        country: input.country!,
        baseline_currency: input.baseline_currency!,
        is_marketplace_operator: false,
        created_by_marketplace_id: operatorId,
      });
      return { kind: 'new', merchant };
    } catch (err) {
      if (!(err instanceof PlatformError) || err.code !== 'ALREADY_EXISTS') throw err;
      const existing = await this.merchants.findByEmail(input.email!);
      if (!existing) throw err;
      if (existing.created_by_marketplace_id === operatorId) {
        const rel = await this.relationships.findByMerchant(existing.id, mode);
        if (!rel) return { kind: 'rejoining', merchant: existing };
        if (rel.marketplace_id === operatorId) return { kind: 'linked', merchant: existing, relationship: rel };
      }
      return { kind: 'registered', merchantId: existing.id };
    }
  }
}

/** What create-or-link with new business fields did: a new sub-merchant, or a registered e-mail to invite. */
export type SubMerchantCreation =
  { kind: 'created'; view: RelationshipView } | { kind: 'registered'; merchantId: number };
