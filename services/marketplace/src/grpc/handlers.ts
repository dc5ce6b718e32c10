import { requireInternal, requireMerchant, type UnaryHandlers } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { MerchantRecord, MerchantService } from '../domain/merchants';

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

/** Operations of later issues are absent and answer UNIMPLEMENTED (HTTP 501 at the gateway). */
export function marketplaceHandlers(merchants: MerchantService): Handlers {
  return {
    async CreateMerchant(req, { caller }) {
      requireInternal(caller);
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
      };
    },
  };
}
