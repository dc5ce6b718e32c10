import { toWire } from '@ppay/runtime';
import { merchantInMode, type MarketplaceHandlers } from '../requests.handlers';
import type { MerchantDeletionService } from './deletions';

/** Delete merchant: the id is validated by the use case (INVALID_MERCHANT_ID, spec 7.6). */
export function deletionHandlers(deletions: MerchantDeletionService): MarketplaceHandlers {
  return {
    async DeleteMerchant(req, { caller, deadline }) {
      const who = merchantInMode(caller);
      return toWire(await deletions.delete(who.merchantId, who.mode, req.merchant_id, deadline));
    },
  };
}
