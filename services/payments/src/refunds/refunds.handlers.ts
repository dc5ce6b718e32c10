import { requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { chargeRefundsResource } from './charge-refunds';
import { refundResource } from './refund';
import type { RefundService } from './refunds';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

/** Refunds of a charge: decode, call the use case, encode. */
export function refundHandlers(refunds: RefundService): Partial<Handlers> {
  return {
    async CreateRefund(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const { charge, refund, replayed } = await refunds.create(
        merchantId,
        requireMode(caller),
        req.charge_id,
        { amount: req.amount ?? undefined, reason: req.reason || undefined },
        { idempotencyKey: req.idempotency_key || undefined, deadline },
      );
      return toWire({ refund: refundResource(charge.charge_id, refund), replayed });
    },
    async ListRefunds(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return toWire(chargeRefundsResource(await refunds.list(merchantId, requireMode(caller), req.charge_id)));
    },
  };
}
