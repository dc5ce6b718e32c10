import { money, normaliseCurrency, PlatformError, requireMerchant, type CallerInfo, type Mode } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { merchantInMode, positive, type MarketplaceHandlers } from '../requests.handlers';
import type { MarketplacePayouts } from './payouts';
import type { BalanceView, PayoutView } from './ports';

/**
 * An operator's approval or rejection names the sub-merchant and the environment of the payout
 * request (X-Environment), not its key's mode.
 */
function payoutRequestRef(req: { environment: string; merchant_id: number; reference: string }, caller: CallerInfo) {
  const operatorId = requireMerchant(caller).merchantId;
  if (req.environment !== 'live' && req.environment !== 'sandbox') {
    throw new PlatformError('VALIDATION_FAILED', 'X-Environment must be live or sandbox', { param: 'X-Environment' });
  }
  const mode: Mode = req.environment;
  return { operatorId, mode, merchantId: positive(req.merchant_id, 'merchantId'), reference: req.reference };
}

/** payments answers the payout request and the balances; they are passed through to the partner as they are. */
const payoutRequest = (view: PayoutView) => view as types.payments.Payout;
const walletBalances = (views: BalanceView[]) => views as types.payments.WalletBalance[];

/** A sub-merchant's balance and payouts: marketplace decides who may act, payments moves the money. */
export function payoutHandlers(payouts: MarketplacePayouts): MarketplaceHandlers {
  return {
    async GetMerchantBalance(req, { caller }) {
      const who = merchantInMode(caller);
      const res = await payouts.balance(who.merchantId, who.mode, positive(req.merchant_id, 'merchantId'));
      return { merchant_id: res.merchant_id, balances: walletBalances(res.balances) };
    },
    async InitiatePayout(req, { caller }) {
      const who = merchantInMode(caller);
      if (!req.amount) throw new PlatformError('VALIDATION_FAILED', 'amount is required', { param: 'amount' });
      const currency = normaliseCurrency(req.amount.currency);
      if (!currency) throw new PlatformError('UNSUPPORTED_CURRENCY', undefined, { param: 'currency' });
      return payoutRequest(
        await payouts.initiate(who.merchantId, who.mode, {
          amount: money(Number(req.amount.amount), currency),
          reference: req.reference,
          payout_method: req.payout_method || undefined,
        }),
      );
    },
    async ApprovePayout(req, { caller }) {
      const ref = payoutRequestRef(req, caller);
      return payoutRequest(await payouts.approve(ref.operatorId, ref.mode, ref.merchantId, ref.reference));
    },
    async RejectPayout(req, { caller }) {
      const ref = payoutRequestRef(req, caller);
      return payoutRequest(await payouts.reject(ref.operatorId, ref.mode, ref.merchantId, ref.reference, req.reason));
    },
  };
}
