import { PlatformError } from '@ppay/kernel';
import { toWire } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { merchantInMode, pageOf, pagination, positive, type MarketplaceHandlers } from '../requests.handlers';
import { marketplaceResource } from './marketplace';
import {
  RELATIONSHIP_STATUSES,
  relationshipResource,
  type RelationshipStatus,
  type RelationshipView,
} from './relationship';
import type { RelationshipService } from './relationships';

const relationship = (v: RelationshipView) => toWire(relationshipResource(v));

/** The new-business fields of POST /marketplace/merchants (an empty string is absent). */
export function businessFields(req: types.marketplace.LinkMerchantRequest__Output) {
  return {
    email: req.email || undefined,
    business_name: req.business_name || undefined,
    country: req.country || undefined,
    baseline_currency: req.baseline_currency || undefined,
    commission_rate: req.commission_rate,
  };
}

/** Marketplace setup and the operator's relationships with its sub-merchants. */
export function relationshipHandlers(relationships: RelationshipService): MarketplaceHandlers {
  return {
    async SetupMarketplace(req, { caller }) {
      const who = merchantInMode(caller);
      const { operator, settings } = await relationships.setup(who.merchantId, who.mode, {
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
      return relationship(await relationships.link(who.merchantId, who.mode, businessFields(req)));
    },
    async UpdateCommission(req, { caller }) {
      const who = merchantInMode(caller);
      return relationship(
        await relationships.updateCommission(
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
      const { items, total } = await relationships.list(who.merchantId, who.mode, status, page, limit);
      return { merchants: items.map((item) => relationship(item)), pagination: pagination(page, limit, total) };
    },
    async RemoveMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      await relationships.remove(who.merchantId, who.mode, positive(req.merchant_id, 'merchantId'));
      return { message: 'Merchant removed from marketplace' };
    },
    async ReactivateMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      return relationship(
        await relationships.reactivate(who.merchantId, who.mode, positive(req.merchant_id, 'merchantId')),
      );
    },
  };
}
