import { ERROR_CATALOGUE, PlatformError, type Mode } from '@ppay/kernel';
import { marketplaceIn, type MerchantRecord } from '../merchants/merchant';
import type { MerchantService } from '../merchants/merchants';
import type { RelationshipRepository } from '../ports';
import { percentToRate } from '../relationships/commission';
import type { MembershipSync } from '../relationships/membership-sync';
import { NO_REJOIN_RULE, type RejoinRule } from '../relationships/rejoin-rule';
import {
  joinedRelationship,
  relationshipChangedEvent,
  relationshipView,
  type RelationshipView,
} from '../relationships/relationship';
import { NEW_BUSINESS_FIELDS, type LinkInput } from '../relationships/relationships';
import {
  effectiveStatus,
  pendingInvitation,
  type InvitationAddress,
  type InvitationDirection,
  type InvitationRecord,
  type InvitationStatus,
} from './invitation';
import type { InvitationRepository } from './ports';

/** Invite an existing business by its id (POST /marketplace/merchants with merchant_id). */
export interface InviteInput extends Omit<LinkInput, 'commission_rate'> {
  merchant_id: number;
  /** Percent 0..100; absent = the marketplace default applies. */
  commission_rate?: number;
}

/** An acceptance interrupted by a crash is finished by the sweep once it is this old. */
export const ACCEPTANCE_REPAIR_AFTER_MS = 30_000;

/**
 * Invitations of existing businesses (spec 2.6): the operator invites, cancels and lists; the invited
 * business accepts (and so joins: the relationship is made), declines and lists. Each one belongs to
 * the mode of the key that sent it; anyone else's, or one of the other mode, is not found.
 */
export class InvitationService {
  constructor(
    private readonly deps: {
      merchants: MerchantService;
      relationships: RelationshipRepository;
      invitations: InvitationRepository;
      membership: MembershipSync;
      /** Whether a business deleted from a mode may join it again yet (default: always). */
      rejoin?: RejoinRule;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * POST /marketplace/merchants with merchant_id: invites an existing business. The answer is the
   * same whether the id exists, is an operator, or is already someone's sub-merchant (nothing is
   * looked up, so neither the status nor the timing tells): such an invitation can never be
   * accepted and expires. A repeated invitation while one is pending returns the pending one.
   */
  async invite(operatorId: number, mode: Mode, input: InviteInput): Promise<InvitationRecord> {
    const operator = await this.deps.merchants.requireMarketplace(operatorId, mode);
    const extra = NEW_BUSINESS_FIELDS.find((f) => input[f] !== undefined && input[f] !== '');
    if (extra) {
      throw new PlatformError('VALIDATION_FAILED', 'Send either merchant_id or the new business fields, not both', {
        param: extra,
      });
    }
    if (input.merchant_id === operator.id) {
      throw new PlatformError('VALIDATION_FAILED', 'A marketplace cannot invite its own business', {
        param: 'merchant_id',
      });
    }
    return this.open(operator, mode, input.merchant_id, input.commission_rate, 'merchant_id');
  }

  /**
   * Create-or-link named a business by an e-mail that is already registered (RelationshipService.create):
   * that business is invited like one named by its id, and must accept with its own key. The operator's
   * answer never shows the id (invitationResource), so an e-mail can be neither confirmed nor turned into
   * an account (Hardening 2 item 11).
   */
  async inviteRegistered(
    operatorId: number,
    mode: Mode,
    merchantId: number,
    commissionPercent: number | undefined,
  ): Promise<InvitationRecord> {
    const operator = await this.deps.merchants.requireMarketplace(operatorId, mode);
    return this.open(operator, mode, merchantId, commissionPercent, 'email');
  }

  /** A pending invitation, or the one already pending for this business, mode and address. */
  private async open(
    operator: MerchantRecord,
    mode: Mode,
    merchantId: number,
    commissionPercent: number | undefined,
    addressedBy: InvitationAddress,
  ): Promise<InvitationRecord> {
    const commission = commissionPercent !== undefined ? percentToRate(commissionPercent, 'commission_rate') : null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = this.now();
      const record = pendingInvitation(
        {
          marketplace_id: operator.id,
          marketplace_name: marketplaceIn(operator, mode)!.name,
          merchant_id: merchantId,
          mode,
          commission_rate: commission,
        },
        now,
        addressedBy,
      );
      if (await this.deps.invitations.insertPending(record)) return record;
      const open = await this.deps.invitations.findOpen(operator.id, merchantId, mode, addressedBy);
      if (open && effectiveStatus(open, now) === 'pending') return open;
      // Expired but not swept yet: close it, then the new invitation takes its place.
      if (open) await this.deps.invitations.closePending(open.id, 'expired', now);
    }
    throw new PlatformError('CONFLICT');
  }

  /**
   * The invited business accepts with its own key, in the invitation's mode. Two documents change,
   * in this order: the invitation (pending → accepted, reserving the relationship id) then the
   * relationship insert. A crash between them is finished by a retry or the sweep
   * (completeAcceptances), and until then there is no relationship, so no split (docs/architecture.md).
   */
  async accept(merchantId: number, mode: Mode, token: string): Promise<RelationshipView> {
    const inv = await this.invitationFor(merchantId, mode, token);
    if (inv.status === 'accepted' && inv.relationship_id !== null) return this.finishAcceptance(inv);
    this.requirePending(inv);
    const [merchant, operator] = await Promise.all([this.deps.merchants.fresh(merchantId), this.invitingOperator(inv)]);
    if (merchant.is_marketplace_operator) {
      throw new PlatformError('VALIDATION_FAILED', 'A marketplace operator cannot be a sub-merchant', {
        param: 'invite_token',
      });
    }
    // The slot is taken only now; a pending invitation never blocked anything.
    if (await this.deps.relationships.findByMerchant(merchantId, mode)) throw this.alreadyLinked();
    await (this.deps.rejoin ?? NO_REJOIN_RULE).assertMayJoin(merchantId, mode, this.now());
    const accepted = await this.deps.invitations.closePending(inv.id, 'accepted', this.now(), {
      notExpiredAt: this.now(),
      relationshipId: await this.deps.relationships.nextId(),
    });
    if (!accepted) throw await this.closedNow(inv);
    return this.finishAcceptance(accepted, operator, merchant);
  }

  /** The invited business declines (its own key, the invitation's mode). */
  async decline(merchantId: number, mode: Mode, token: string): Promise<InvitationRecord> {
    const inv = await this.invitationFor(merchantId, mode, token);
    return this.close(inv, 'declined');
  }

  /** The operator withdraws a pending invitation. */
  async cancel(operatorId: number, mode: Mode, token: string): Promise<InvitationRecord> {
    const operator = await this.deps.merchants.requireOperator(operatorId);
    const inv = token ? await this.deps.invitations.findById(token) : null;
    if (!inv || inv.marketplace_id !== operator.id || inv.mode !== mode) {
      throw new PlatformError('INVITATION_NOT_FOUND', undefined, { param: 'invite_token' });
    }
    return this.close(inv, 'cancelled');
  }

  /** Invitations the operator sent, or the business received, in `mode`. */
  async list(
    merchantId: number,
    mode: Mode,
    direction: InvitationDirection,
    status: InvitationStatus | undefined,
    page: number,
    limit: number,
  ): Promise<{ items: InvitationRecord[]; total: number }> {
    if (direction === 'sent') await this.deps.merchants.requireOperator(merchantId);
    return this.deps.invitations.list({ direction, merchant_id: merchantId, mode, status }, this.now(), page, limit);
  }

  /** Sweep job: stores `expired` on pending invitations past their expiry. */
  async expireDue(limit = 100): Promise<number> {
    const now = this.now();
    let expired = 0;
    for (const inv of await this.deps.invitations.dueForExpiry(now, limit)) {
      if (await this.deps.invitations.closePending(inv.id, 'expired', now)) expired++;
    }
    return expired;
  }

  /** Sweep job: finishes acceptances interrupted between the invitation and the relationship write. */
  async completeAcceptances(limit = 100): Promise<number> {
    const before = new Date(this.now().getTime() - ACCEPTANCE_REPAIR_AFTER_MS);
    let repaired = 0;
    for (const inv of await this.deps.invitations.unfinishedAcceptances(before, limit)) {
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
    const { merchants, relationships, invitations } = this.deps;
    const relationshipId = inv.relationship_id!;
    const [operator, merchant] = await Promise.all([
      knownOperator ?? merchants.fresh(inv.marketplace_id),
      knownMerchant ?? merchants.fresh(inv.merchant_id),
    ]);
    let record = await relationships.findById(relationshipId);
    if (!record) {
      record = joinedRelationship(
        {
          id: relationshipId,
          marketplace_id: inv.marketplace_id,
          merchant_id: inv.merchant_id,
          mode: inv.mode,
          commission_rate: inv.commission_rate,
        },
        inv,
        inv.responded_at ?? this.now(),
      );
      try {
        await relationships.insert(record, relationshipChangedEvent(record, 'accepted'));
      } catch (err) {
        if (err instanceof PlatformError && err.code === 'MERCHANT_ALREADY_LINKED') {
          await invitations.reopenAcceptance(inv.id, relationshipId);
          throw this.alreadyLinked();
        }
        throw err;
      }
    }
    await invitations.markRelationshipWritten(inv.id);
    await this.deps.membership.syncQuietly(record);
    return relationshipView(record, merchant, operator);
  }

  private async invitationFor(merchantId: number, mode: Mode, token: string): Promise<InvitationRecord> {
    const inv = token ? await this.deps.invitations.findById(token) : null;
    // Someone else's invitation, or one of the other mode, is indistinguishable from none.
    if (!inv || inv.merchant_id !== merchantId || inv.mode !== mode) {
      throw new PlatformError('INVITATION_NOT_FOUND', undefined, { param: 'invite_token' });
    }
    return inv;
  }

  private async invitingOperator(inv: InvitationRecord): Promise<MerchantRecord> {
    const operator = await this.deps.merchants.freshOrNull(inv.marketplace_id);
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
    const closed = await this.deps.invitations.closePending(inv.id, to, now, { notExpiredAt: now });
    if (!closed) throw await this.closedNow(inv);
    return closed;
  }

  /** Why a conditional write on a pending invitation found nothing: it was closed meanwhile. */
  private async closedNow(inv: InvitationRecord): Promise<PlatformError> {
    try {
      this.requirePending((await this.deps.invitations.findById(inv.id)) ?? inv);
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
}
