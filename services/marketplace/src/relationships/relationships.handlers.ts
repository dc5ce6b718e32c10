import {
  money,
  normaliseCurrency,
  PlatformError,
  requireInternal,
  requireMerchant,
  requireMode,
  type CallerInfo,
  type Mode,
} from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import {
  marketplaceResource,
  relationshipResource,
  type MarketplaceService,
  type RelationshipView,
} from '../domain/marketplace';
import {
  INVITATION_STATUSES,
  invitationResource,
  type InvitationRecord,
  type InvitationStatus,
} from '../domain/invitations';
import type { MerchantDeletionService } from '../domain/deletions';
import { accountResource, merchantResource, settingsResource, type MerchantService } from '../domain/merchants';
import { RELATIONSHIP_STATUSES, type RelationshipStatus } from '../domain/relationships';
import type { MarketplacePayouts } from '../domain/payouts';

type Handlers = UnaryHandlers<types.marketplace.MarketplaceServiceHandlers>;

/** Business settings belong to the dashboard user (x-id-key), not to an API key of one mode. */
function requireDashboardUser(caller: CallerInfo) {
  const who = requireMerchant(caller);
  if (caller.auth !== 'user_token' && caller.auth !== 'internal') {
    throw new PlatformError(
      'PERMISSION_DENIED',
      'Account settings are changed with the dashboard user token (x-id-key)',
    );
  }
  return who;
}

const relationship = (v: RelationshipView) => toWire(relationshipResource(v));
const invitation = (inv: InvitationRecord) => toWire(invitationResource(inv, new Date()));

/**
 * Marketplace data is separated by mode: the caller's key mode (metadata) scopes every operation, so
 * a sandbox key never reads or changes what live payments use.
 */
function merchantInMode(caller: CallerInfo) {
  const who = requireMerchant(caller);
  return { merchantId: who.merchantId, mode: requireMode(caller) };
}

function pageOf(req: { page: { page: number; limit: number } | null }) {
  const page = req.page?.page || 1;
  const limit = req.page?.limit || 20;
  if (page < 1 || limit < 1 || limit > 100) {
    throw new PlatformError('VALIDATION_FAILED', 'page must be ≥ 1 and limit 1 to 100', { param: 'limit' });
  }
  return { page, limit };
}

function positive(value: number | undefined, param: string): number {
  if (!value || !Number.isSafeInteger(value) || value < 1) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be a positive integer`, { param });
  }
  return value;
}

function environmentOf(value: string): Mode {
  if (value === 'live' || value === 'sandbox') return value;
  throw new PlatformError('VALIDATION_FAILED', 'X-Environment must be live or sandbox', { param: 'X-Environment' });
}

/** Operations of later issues are absent and answer UNIMPLEMENTED (HTTP 501 at the gateway). */
export function marketplaceHandlers(
  merchants: MerchantService,
  marketplace: MarketplaceService,
  deletions: MerchantDeletionService,
  payouts: MarketplacePayouts,
): Handlers {
  return {
    async GetMerchantBalance(req, { caller }) {
      const who = merchantInMode(caller);
      return payouts.balance(who.merchantId, who.mode, positive(req.merchant_id, 'merchantId'));
    },
    async InitiatePayout(req, { caller }) {
      const who = merchantInMode(caller);
      if (!req.amount) throw new PlatformError('VALIDATION_FAILED', 'amount is required', { param: 'amount' });
      const currency = normaliseCurrency(req.amount.currency);
      if (!currency) throw new PlatformError('UNSUPPORTED_CURRENCY', undefined, { param: 'currency' });
      return (await payouts.initiate(who.merchantId, who.mode, {
        amount: money(Number(req.amount.amount), currency),
        reference: req.reference,
        payout_method: req.payout_method || undefined,
      })) as unknown as types.marketplace.PayoutRequest;
    },
    async ApprovePayout(req, { caller }) {
      const who = requireMerchant(caller);
      return (await payouts.approve(
        who.merchantId,
        environmentOf(req.environment),
        positive(req.merchant_id, 'merchantId'),
        req.reference,
      )) as unknown as types.marketplace.PayoutRequest;
    },
    async RejectPayout(req, { caller }) {
      const who = requireMerchant(caller);
      return (await payouts.reject(
        who.merchantId,
        environmentOf(req.environment),
        positive(req.merchant_id, 'merchantId'),
        req.reference,
        req.reason,
      )) as unknown as types.marketplace.PayoutRequest;
    },
    async CreateMerchant(req, { caller }) {
      requireInternal(caller);
      if (req.operator_merchant_id) {
        // The CLI's sub-merchant path: the same create-or-link use case the operator's API calls.
        if (req.is_marketplace_operator) {
          throw new PlatformError('VALIDATION_FAILED', 'A sub-merchant cannot be a marketplace operator', {
            param: 'is_marketplace_operator',
          });
        }
        // The relationship belongs to the mode of the key the CLI is about to create.
        const mode = requireMode(caller);
        const linked = await marketplace.link(req.operator_merchant_id, mode, {
          email: req.email,
          business_name: req.business_name,
          country: req.country,
          baseline_currency: req.baseline_currency,
          commission_rate: req.commission_rate,
        });
        return toWire(merchantResource(await merchants.fresh(linked.relationship.merchant_id), mode));
      }
      if (req.commission_rate !== undefined) {
        throw new PlatformError('VALIDATION_FAILED', 'commission_rate needs operator_merchant_id', {
          param: 'commission_rate',
        });
      }
      const created = await merchants.create({
        email: req.email,
        business_name: req.business_name,
        country: req.country,
        baseline_currency: req.baseline_currency,
        is_marketplace_operator: req.is_marketplace_operator,
        owner_user_id: req.owner_user_id,
      });
      return toWire(merchantResource(created, caller.mode ?? 'sandbox'));
    },
    async GetAccount(_req, { caller }) {
      const who = requireMerchant(caller);
      return toWire(accountResource(await merchants.get(who.merchantId), who.mode));
    },
    async GetAccountSettings(_req, { caller }) {
      return toWire(settingsResource(await merchants.fresh(requireDashboardUser(caller).merchantId)));
    },
    async UpdateAccountSettings(req, { caller }) {
      const who = requireDashboardUser(caller);
      return toWire(
        settingsResource(
          await merchants.updateSettings(who.merchantId, { customer_pays_fees: req.customer_pays_fees }),
        ),
      );
    },
    async SetupMarketplace(req, { caller }) {
      const who = merchantInMode(caller);
      const { operator, settings } = await marketplace.setup(who.merchantId, who.mode, {
        marketplace_name: req.marketplace_name,
        default_commission_rate: req.default_commission_rate,
      });
      return toWire(marketplaceResource(operator, settings));
    },
    async LinkMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      if (req.merchant_id) {
        throw new PlatformError('VALIDATION_FAILED', 'An existing business is invited (InviteMerchant)', {
          param: 'merchant_id',
        });
      }
      return relationship(
        await marketplace.link(who.merchantId, who.mode, {
          email: req.email || undefined,
          business_name: req.business_name || undefined,
          country: req.country || undefined,
          baseline_currency: req.baseline_currency || undefined,
          commission_rate: req.commission_rate,
        }),
      );
    },
    async InviteMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      return invitation(
        await marketplace.invite(who.merchantId, who.mode, {
          merchant_id: positive(req.merchant_id, 'merchant_id'),
          email: req.email || undefined,
          business_name: req.business_name || undefined,
          country: req.country || undefined,
          baseline_currency: req.baseline_currency || undefined,
          commission_rate: req.commission_rate,
        }),
      );
    },
    async AcceptInvitation(req, { caller }) {
      const who = merchantInMode(caller);
      return relationship(await marketplace.acceptInvitation(who.merchantId, who.mode, req.invite_token));
    },
    async DeclineInvitation(req, { caller }) {
      const who = merchantInMode(caller);
      return invitation(await marketplace.declineInvitation(who.merchantId, who.mode, req.invite_token));
    },
    async CancelInvitation(req, { caller }) {
      const who = merchantInMode(caller);
      return invitation(await marketplace.cancelInvitation(who.merchantId, who.mode, req.invite_token));
    },
    async ListInvitations(req, { caller }) {
      const who = merchantInMode(caller);
      const direction = req.direction || 'received';
      if (direction !== 'received' && direction !== 'sent') {
        throw new PlatformError('VALIDATION_FAILED', 'direction must be one of: received, sent', {
          param: 'direction',
        });
      }
      const status = (req.status || undefined) as InvitationStatus | undefined;
      if (status !== undefined && !INVITATION_STATUSES.includes(status)) {
        throw new PlatformError('VALIDATION_FAILED', `status must be one of: ${INVITATION_STATUSES.join(', ')}`, {
          param: 'status',
        });
      }
      const { page, limit } = pageOf(req);
      const { items, total } = await marketplace.listInvitations(
        who.merchantId,
        who.mode,
        direction,
        status,
        page,
        limit,
      );
      return {
        invitations: items.map(invitation),
        pagination: { page, limit, total, pages: Math.ceil(total / limit) },
      };
    },
    async UpdateCommission(req, { caller }) {
      const who = merchantInMode(caller);
      return relationship(
        await marketplace.updateCommission(
          who.merchantId,
          who.mode,
          positive(req.merchant_id, 'merchantId'),
          req.commission_rate,
        ),
      );
    },
    async ListMerchants(req, { caller }) {
      const who = merchantInMode(caller);
      const status = (req.status || 'active') as RelationshipStatus;
      if (!RELATIONSHIP_STATUSES.includes(status)) {
        throw new PlatformError('VALIDATION_FAILED', 'status must be one of: active, suspended', {
          param: 'status',
        });
      }
      const { page, limit } = pageOf(req);
      const { items, total } = await marketplace.list(who.merchantId, who.mode, status, page, limit);
      return {
        merchants: items.map((item) => relationship(item)),
        pagination: { page, limit, total, pages: Math.ceil(total / limit) },
      };
    },
    async RemoveMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      await marketplace.remove(who.merchantId, who.mode, positive(req.merchant_id, 'merchantId'));
      return { message: 'Merchant removed from marketplace' };
    },
    async DeleteMerchant(req, { caller, deadline }) {
      const who = merchantInMode(caller);
      return toWire(await deletions.delete(who.merchantId, who.mode, req.merchant_id, deadline));
    },
    async ReactivateMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      return relationship(
        await marketplace.reactivate(who.merchantId, who.mode, positive(req.merchant_id, 'merchantId')),
      );
    },
    /**
     * Internal (payments, on a successful charge carrying sub_merchant_id), or the operator itself
     * when a sibling forwards the partner's caller: an API-key caller may only ask about its own id.
     * The mode of the charge (or of the caller's key) is required: it picks the relationship.
     */
    async ResolveSplit(req, { caller }) {
      const operatorId = positive(req.operator_merchant_id, 'operator_merchant_id');
      const subMerchantId = positive(req.sub_merchant_id, 'sub_merchant_id');
      if (caller.auth !== 'internal') {
        const who = requireMerchant(caller);
        if (who.merchantId !== operatorId) throw new PlatformError('PERMISSION_DENIED');
      }
      return marketplace.resolveSplit(operatorId, subMerchantId, requireMode(caller));
    },
    /** kyc, before every KYC and payout call: same callers and errors as ResolveSplit. */
    async DescribeSubMerchant(req, { caller }) {
      const operatorId = positive(req.operator_merchant_id, 'operator_merchant_id');
      const subMerchantId = positive(req.sub_merchant_id, 'sub_merchant_id');
      if (caller.auth !== 'internal') {
        const who = requireMerchant(caller);
        if (who.merchantId !== operatorId) throw new PlatformError('PERMISSION_DENIED');
      }
      return toWire(await marketplace.describeSubMerchant(operatorId, subMerchantId, requireMode(caller)));
    },
  };
}
