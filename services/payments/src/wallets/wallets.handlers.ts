import { PlatformError, requireMerchant, requireMode, type CallerInfo, type Mode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { LedgerRepository } from '../ports';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

/** The mode a platform-internal caller names in its request (marketplace asks per merchant and mode). */
export function requestedMode(value: string): Mode {
  if (value === 'live' || value === 'sandbox') return value;
  throw new PlatformError('VALIDATION_FAILED', 'mode must be sandbox or live', { param: 'mode' });
}

/** Internal callers name the merchant; a merchant's own key reads its own wallets in its mode. */
function balanceOwner(req: types.payments.WalletBalancesRequest__Output, caller: CallerInfo) {
  if (caller.auth === 'internal') return { merchantId: Number(req.merchant_id), mode: requestedMode(req.mode) };
  return { merchantId: requireMerchant(caller).merchantId, mode: requireMode(caller) };
}

/** Wallet balances (spec 2.9): decode, call the ledger, encode. */
export function walletHandlers(ledger: Pick<LedgerRepository, 'balances'>): Partial<Handlers> {
  return {
    async GetWalletBalances(req, { caller }) {
      const { merchantId, mode } = balanceOwner(req, caller);
      return toWire({ balances: await ledger.balances(merchantId, mode) });
    },
  };
}
