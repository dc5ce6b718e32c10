import { money, normaliseCurrency, PlatformError, requireInternal } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { requestedMode } from '../wallets/wallets.handlers';
import { payoutResource, type PayoutRecord } from './payout';
import type { PayoutService } from './payouts';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

const encode = async (payout: Promise<PayoutRecord>) => toWire(payoutResource(await payout));

/** Staged payouts and their settlement: decode, call the use case, encode. */
export function payoutHandlers(payouts: PayoutService): Partial<Handlers> {
  return {
    async CreatePayout(req, { caller }) {
      requireInternal(caller);
      if (!req.amount) throw new PlatformError('VALIDATION_FAILED', 'amount is required', { param: 'amount' });
      if (!normaliseCurrency(req.amount.currency)) {
        throw new PlatformError('UNSUPPORTED_CURRENCY', undefined, { param: 'currency' });
      }
      return encode(
        payouts.initiate(Number(req.merchant_id), requestedMode(req.mode), {
          amount: money(Number(req.amount.amount), req.amount.currency),
          reference: req.reference,
          marketplace_id: Number(req.marketplace_id),
          payment_gateway: req.payment_gateway,
          payout_method: req.payout_method,
        }),
      );
    },
    async ApprovePayout(req, { caller }) {
      requireInternal(caller);
      const operator = Number(req.operator_merchant_id);
      return encode(payouts.approve(Number(req.merchant_id), requestedMode(req.mode), req.reference, operator));
    },
    async RejectPayout(req, { caller }) {
      requireInternal(caller);
      const operator = Number(req.operator_merchant_id);
      return encode(
        payouts.reject(Number(req.merchant_id), requestedMode(req.mode), req.reference, operator, req.reason),
      );
    },
    async SettlePayout(req, { caller }) {
      return encode(
        payouts.settleFor(caller, Number(req.merchant_id), req.reference, req.outcome, req.failure_reason || null),
      );
    },
  };
}
