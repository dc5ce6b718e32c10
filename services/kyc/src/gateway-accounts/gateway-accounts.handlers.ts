import { requireInternal } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { positive, requestedMode } from '../grpc-requests.adapter';
import type { GatewayAccountService } from './gateway-accounts';

type Handlers = UnaryHandlers<types.kyc.KycServiceHandlers>;

export function gatewayAccountHandlers(gatewayAccounts: GatewayAccountService): Pick<Handlers, 'CloseGatewayAccount'> {
  return {
    /** Internal (marketplace, delete merchant): balance of the connected account; closed only if zero. */
    async CloseGatewayAccount(req, { caller }) {
      requireInternal(caller);
      const mode = requestedMode(req.mode);
      const res = await gatewayAccounts.closeForDeletion(positive(req.merchant_id, 'merchant_id'), mode);
      return toWire({
        found: res.found,
        closed: res.closed,
        available: res.balance?.available ?? null,
        pending: res.balance?.pending ?? null,
        gateway_account_id: res.gateway_account_id,
      });
    },
  };
}
