import { PlatformError, requireInternal, requireMerchant, type CallerInfo, type UnaryHandlers } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { MarketplaceService, RelationshipView } from '../domain/marketplace';
import type { MerchantRecord, MerchantService } from '../domain/merchants';
import { RELATIONSHIP_STATUSES, type RelationshipStatus } from '../domain/relationships';

type Handlers = UnaryHandlers<types.marketplace.MarketplaceServiceHandlers>;

function toMerchant(m: MerchantRecord): types.marketplace.Merchant {
  return {
    id: m.id,
    email: m.email,
    business_name: m.business_name,
    country: m.country,
    baseline_currency: m.baseline_currency,
    is_marketplace_operator: m.is_marketplace_operator,
    owner_user_id: m.owner_user_id,
    marketplace_id: m.marketplace_id ?? 0,
    marketplace_commission_rate: m.marketplace_commission_rate ?? '',
    customer_pays_fees: m.customer_pays_fees,
    created_at: m.created_at.toISOString(),
  };
}

function toSettings(m: MerchantRecord): types.marketplace.AccountSettings {
  return {
    merchant_id: m.id,
    customer_pays_fees: m.customer_pays_fees,
    version: m.settings_version,
    updated_at: m.settings_updated_at?.toISOString() ?? '',
  };
}

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

/** Proto has no null: empty strings stand for the spec's nulls; the gateway maps them back. */
function toRelationship(v: RelationshipView): types.marketplace.MerchantRelationship {
  const r = v.relationship;
  return {
    id: r.id,
    marketplace_id: r.marketplace_id,
    merchant_id: r.merchant_id,
    commission_rate: v.commission_rate,
    commission_source: v.commission_source,
    status: r.status,
    invite_token: r.invite_token ?? '',
    invited_at: r.invited_at?.toISOString() ?? '',
    joined_at: r.joined_at?.toISOString() ?? '',
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    merchant: { id: r.merchant_id, educator_email: v.merchant_email },
  };
}

function positive(value: number | undefined, param: string): number {
  if (!value || !Number.isSafeInteger(value) || value < 1) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be a positive integer`, { param });
  }
  return value;
}

/** Operations of later issues are absent and answer UNIMPLEMENTED (HTTP 501 at the gateway). */
export function marketplaceHandlers(merchants: MerchantService, marketplace: MarketplaceService): Handlers {
  return {
    async CreateMerchant(req, { caller }) {
      requireInternal(caller);
      if (req.operator_merchant_id) {
        // The CLI's sub-merchant path: the same create-or-link use case the operator's API calls.
        if (req.is_marketplace_operator) {
          throw new PlatformError('VALIDATION_FAILED', 'A sub-merchant cannot be a marketplace operator', {
            param: 'is_marketplace_operator',
          });
        }
        const linked = await marketplace.link(req.operator_merchant_id, {
          email: req.email,
          business_name: req.business_name,
          country: req.country,
          baseline_currency: req.baseline_currency,
          commission_rate: req.commission_rate,
        });
        return toMerchant(await merchants.fresh(linked.relationship.merchant_id));
      }
      if (req.commission_rate !== undefined) {
        throw new PlatformError('VALIDATION_FAILED', 'commission_rate needs operator_merchant_id', {
          param: 'commission_rate',
        });
      }
      return toMerchant(
        await merchants.create({
          email: req.email,
          business_name: req.business_name,
          country: req.country,
          baseline_currency: req.baseline_currency,
          is_marketplace_operator: req.is_marketplace_operator,
          owner_user_id: req.owner_user_id,
        }),
      );
    },
    async GetAccount(_req, { caller }) {
      const who = requireMerchant(caller);
      const merchant = await merchants.get(who.merchantId);
      return {
        merchant_id: merchant.id,
        baseline_currency: merchant.baseline_currency,
        mode: who.mode ?? '',
        is_marketplace_operator: merchant.is_marketplace_operator,
        customer_pays_fees: merchant.customer_pays_fees,
      };
    },
    async GetAccountSettings(_req, { caller }) {
      return toSettings(await merchants.fresh(requireDashboardUser(caller).merchantId));
    },
    async UpdateAccountSettings(req, { caller }) {
      const who = requireDashboardUser(caller);
      return toSettings(await merchants.updateSettings(who.merchantId, { customer_pays_fees: req.customer_pays_fees }));
    },
    async SetupMarketplace(req, { caller }) {
      const who = requireMerchant(caller);
      const { operator, settings } = await marketplace.setup(who.merchantId, {
        marketplace_name: req.marketplace_name,
        default_commission_rate: req.default_commission_rate,
      });
      return {
        marketplace_id: String(operator.id),
        status: settings.status,
        marketplace_name: settings.name,
        default_commission_rate: settings.default_commission_rate ?? '',
        created_at: settings.created_at.toISOString(),
        updated_at: settings.updated_at.toISOString(),
      };
    },
    async LinkMerchant(req, { caller }) {
      const who = requireMerchant(caller);
      return toRelationship(
        await marketplace.link(who.merchantId, {
          merchant_id: req.merchant_id || undefined,
          email: req.email || undefined,
          business_name: req.business_name || undefined,
          country: req.country || undefined,
          baseline_currency: req.baseline_currency || undefined,
          commission_rate: req.commission_rate,
        }),
      );
    },
    async AcceptInvitation(req, { caller }) {
      const who = requireMerchant(caller);
      return toRelationship(await marketplace.acceptInvitation(who.merchantId, req.invite_token));
    },
    async UpdateCommission(req, { caller }) {
      const who = requireMerchant(caller);
      return toRelationship(
        await marketplace.updateCommission(
          who.merchantId,
          positive(req.merchant_id, 'merchantId'),
          req.commission_rate,
        ),
      );
    },
    async ListMerchants(req, { caller }) {
      const who = requireMerchant(caller);
      const status = (req.status || 'active') as RelationshipStatus;
      if (!RELATIONSHIP_STATUSES.includes(status)) {
        throw new PlatformError('VALIDATION_FAILED', 'status must be one of: active, suspended, pending', {
          param: 'status',
        });
      }
      const page = req.page?.page || 1;
      const limit = req.page?.limit || 20;
      if (page < 1 || limit < 1 || limit > 100) {
        throw new PlatformError('VALIDATION_FAILED', 'page must be ≥ 1 and limit 1 to 100', { param: 'limit' });
      }
      const { items, total } = await marketplace.list(who.merchantId, status, page, limit);
      return {
        merchants: items.map(toRelationship),
        pagination: { page, limit, total, pages: Math.ceil(total / limit) },
      };
    },
    async RemoveMerchant(req, { caller }) {
      const who = requireMerchant(caller);
      await marketplace.remove(who.merchantId, positive(req.merchant_id, 'merchantId'));
      return { message: 'Merchant removed from marketplace' };
    },
    async ReactivateMerchant(req, { caller }) {
      const who = requireMerchant(caller);
      return toRelationship(await marketplace.reactivate(who.merchantId, positive(req.merchant_id, 'merchantId')));
    },
    /**
     * Internal (payments, on a successful charge carrying sub_merchant_id), or the operator itself
     * when a sibling forwards the partner's caller: an API-key caller may only ask about its own id.
     */
    async ResolveSplit(req, { caller }) {
      const operatorId = positive(req.operator_merchant_id, 'operator_merchant_id');
      const subMerchantId = positive(req.sub_merchant_id, 'sub_merchant_id');
      if (caller.auth !== 'internal') {
        const who = requireMerchant(caller);
        if (who.merchantId !== operatorId) throw new PlatformError('PERMISSION_DENIED');
      }
      return marketplace.resolveSplit(operatorId, subMerchantId);
    },
  };
}
