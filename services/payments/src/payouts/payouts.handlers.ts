import {
  money,
  normaliseCurrency,
  PlatformError,
  requireInternal,
  requireMerchant,
  requireMode,
  type CallerInfo,
  type Mode,
} from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { LedgerRepository } from '../ports';
import { payoutResource } from './payout';
import type { PayoutService } from './payouts';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

function modeOf(value: string): Mode {
  if (value === 'live' || value === 'sandbox') return value;
  throw new PlatformError('VALIDATION_FAILED', 'mode must be sandbox or live', { param: 'mode' });
}

/** Internal callers name the merchant; a merchant's own key reads its own wallets in its mode. */
function balanceOwner(req: types.payments.WalletBalancesRequest__Output, caller: CallerInfo) {
  if (caller.auth === 'internal') return { merchantId: Number(req.merchant_id), mode: modeOf(req.mode) };
  return { merchantId: requireMerchant(caller).merchantId, mode: requireMode(caller) };
}

/** Wallet balances, staged payouts and their settlement: decode, call the use case, encode. */
export function payoutHandlers(payouts: PayoutService, ledger: LedgerRepository): Partial<Handlers> {
  return {
    async GetWalletBalances(req, { caller }) {
      const { merchantId, mode } = balanceOwner(req, caller);
      return { balances: await ledger.balances(merchantId, mode) };
    },
    async CreatePayout(req, { caller }) {
      requireInternal(caller);
      if (!req.amount) throw new PlatformError('VALIDATION_FAILED', 'amount is required', { param: 'amount' });
      if (!normaliseCurrency(req.amount.currency)) {
        throw new PlatformError('UNSUPPORTED_CURRENCY', undefined, { param: 'currency' });
      }
      const payout = await payouts.initiate(Number(req.merchant_id), modeOf(req.mode), {
        amount: money(Number(req.amount.amount), req.amount.currency),
        reference: req.reference,
        marketplace_id: Number(req.marketplace_id),
        payment_gateway: req.payment_gateway,
        payout_method: req.payout_method,
      });
      return toWire(payoutResource(payout));
    },
    async ApprovePayout(req, { caller }) {
      requireInternal(caller);
      return toWire(
        payoutResource(
          await payouts.approve(
            Number(req.merchant_id),
            modeOf(req.mode),
            req.reference,
            Number(req.operator_merchant_id),
          ),
        ),
      );
    },
    async RejectPayout(req, { caller }) {
      requireInternal(caller);
      return toWire(
        payoutResource(
          await payouts.reject(
            Number(req.merchant_id),
            modeOf(req.mode),
            req.reference,
            Number(req.operator_merchant_id),
            req.reason,
          ),
        ),
      );
    },
    async SettlePayout(req, { caller }) {
      const outcome = req.outcome === 'paid' || req.outcome === 'failed' ? req.outcome : undefined;
      if (!outcome)
        throw new PlatformError('VALIDATION_FAILED', 'outcome must be paid or failed', { param: 'outcome' });
      let merchantId: number;
      let mode: Mode;
      if (caller.auth === 'admin' || caller.auth === 'internal') {
        // The platform admin settles live withdrawals (the processor's answer); sandbox has its helper.
        merchantId = Number(req.merchant_id);
        mode = 'live';
      } else {
        merchantId = requireMerchant(caller).merchantId;
        mode = requireMode(caller);
        if (mode !== 'sandbox') {
          throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
        }
      }
      return toWire(
        payoutResource(await payouts.settle(merchantId, mode, req.reference, outcome, req.failure_reason || null)),
      );
    },
  };
}
