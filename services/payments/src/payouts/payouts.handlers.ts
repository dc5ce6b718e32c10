import { money, normaliseCurrency, PlatformError, requireInternal } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { requestedMode } from '../wallets/wallets.handlers';
import { payoutResource, type PayoutDestination, type PayoutRecord } from './payout';
import type { PayoutService } from './payouts';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

const encode = async (payout: Promise<PayoutRecord>) => toWire(payoutResource(await payout));

/**
 * The destination marketplace read from kyc (absent from a marketplace of the previous version: the
 * request is then staged without one, and cannot be approved).
 */
function destinationOf(d: types.payments.PayoutDestination__Output | null): PayoutDestination | null {
  if (!d) return null;
  if (d.kind !== 'bank_account' && d.kind !== 'connected_account') {
    throw new PlatformError('VALIDATION_FAILED', 'destination.kind must be bank_account or connected_account', {
      param: 'destination',
    });
  }
  return {
    kind: d.kind,
    bank_name: d.bank_name ?? null,
    institution_id: d.institution_id ?? null,
    account_number_masked: d.account_number_masked ?? null,
    account_name: d.account_name ?? null,
    gateway_account_id: d.gateway_account_id ?? null,
    fingerprint: d.fingerprint ?? null,
  };
}

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
          destination: destinationOf(req.destination),
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
