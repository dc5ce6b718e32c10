import { PlatformError, requireInternal, requireMerchant, requireMode, type CallerInfo } from '@ppay/kernel';
import { toWire } from '@ppay/runtime';
import type { RelationshipService } from '../relationships/relationships';
import type { MarketplaceHandlers } from '../requests.handlers';
import { accountResource, merchantResource, settingsResource } from './merchant';
import type { MerchantService } from './merchants';

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

/** Merchant records: the CLI's bootstrap, GET /account and the account settings. */
export function merchantHandlers(merchants: MerchantService, relationships: RelationshipService): MarketplaceHandlers {
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
        // The relationship belongs to the mode of the key the CLI is about to create.
        const mode = requireMode(caller);
        const linked = await relationships.link(req.operator_merchant_id, mode, {
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
  };
}
