import { requireInternal, requireMerchant } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { operator, positive, requestedMode } from '../grpc-requests.adapter';
import { payoutAccountResource, payoutSettingsResource } from './payout-account';
import type { PayoutAccountService } from './payout-accounts';

type Handlers = UnaryHandlers<types.kyc.KycServiceHandlers>;

/** Payout banks and accounts (spec 2.8, 4.9), and the account marketplace's payouts read. */
export function payoutAccountHandlers(
  payoutAccounts: PayoutAccountService,
): Pick<Handlers, 'ListPayoutBanks' | 'SetupPayout' | 'UpdatePayout' | 'GetPayoutAccount'> {
  return {
    async ListPayoutBanks(req, { caller, deadline }) {
      const operatorId = requireMerchant(caller).merchantId;
      return { banks: [...(await payoutAccounts.listBanks(operatorId, req.currency || undefined, deadline))] };
    },
    async SetupPayout(req, { caller, deadline }) {
      const { merchant_id, ...body } = req;
      const result = await payoutAccounts.setup(operator(caller, deadline), positive(merchant_id, 'merchantId'), body);
      return toWire(payoutSettingsResource(result));
    },
    async UpdatePayout(req, { caller, deadline }) {
      const { merchant_id, ...body } = req;
      const result = await payoutAccounts.update(operator(caller, deadline), positive(merchant_id, 'merchantId'), body);
      return toWire(payoutSettingsResource(result));
    },
    /** Internal (marketplace payouts): the payout account of one mode, masked. */
    async GetPayoutAccount(req, { caller }) {
      requireInternal(caller);
      const mode = requestedMode(req.mode);
      const { kyc: c, account } = await payoutAccounts.account(positive(req.merchant_id, 'merchant_id'), mode);
      // Payments pays a connected account from its region's platform account (docs/decisions.md C28).
      const region = account.payout_method === 'connected_account' ? (c.connected?.gateway_region ?? null) : null;
      return toWire({ ...payoutAccountResource(c, account), gateway_region: region });
    },
  };
}
