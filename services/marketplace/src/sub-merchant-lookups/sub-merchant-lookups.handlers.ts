import { PlatformError, requireMerchant, requireMode, type CallerInfo } from '@ppay/kernel';
import { toWire } from '@ppay/runtime';
import { positive, type MarketplaceHandlers } from '../requests.handlers';
import type { SubMerchantLookups } from './sub-merchant-lookups';

/**
 * Internal callers (payments, kyc), or the operator itself when a sibling forwards the partner's
 * caller: an API-key caller may only ask about its own id. The mode of the call (the charge's, or
 * the caller's key) is required: it picks the relationship.
 */
function lookupOf(req: { operator_merchant_id: number; sub_merchant_id: number }, caller: CallerInfo) {
  const operatorId = positive(req.operator_merchant_id, 'operator_merchant_id');
  const subMerchantId = positive(req.sub_merchant_id, 'sub_merchant_id');
  if (caller.auth !== 'internal') {
    const who = requireMerchant(caller);
    if (who.merchantId !== operatorId) throw new PlatformError('PERMISSION_DENIED');
  }
  return { operatorId, subMerchantId, mode: requireMode(caller) };
}

/** What payments (a split) and kyc (before a KYC or payout call) ask about a sub-merchant. */
export function subMerchantLookupHandlers(lookups: SubMerchantLookups): MarketplaceHandlers {
  return {
    /** payments, on a successful charge carrying sub_merchant_id. */
    async ResolveSplit(req, { caller }) {
      const { operatorId, subMerchantId, mode } = lookupOf(req, caller);
      return lookups.resolveSplit(operatorId, subMerchantId, mode);
    },
    /** kyc, before every KYC and payout call: same callers and errors as ResolveSplit. */
    async DescribeSubMerchant(req, { caller }) {
      const { operatorId, subMerchantId, mode } = lookupOf(req, caller);
      return toWire(await lookups.describeSubMerchant(operatorId, subMerchantId, mode));
    },
  };
}
