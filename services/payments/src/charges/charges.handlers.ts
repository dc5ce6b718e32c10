import { PlatformError, requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { ChargeRequest, ChargeService } from './charges';
import type { OutcomeService } from './outcomes';
import { chargeRefundsResource, refundResource } from '../refunds/refund';
import type { RefundService } from '../refunds/refunds';
import { customerOf, metadataOf, present } from './payment-request.handlers';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

function toChargeRequest(req: types.payments.CreateChargeRequest__Output): ChargeRequest {
  return {
    amount: present(req._amount, req.amount),
    currency: req.currency || undefined,
    total_amount: present(req._total_amount, req.total_amount),
    total_currency: req.total_currency || undefined,
    converted_total_amount: present(req._converted_total_amount, req.converted_total_amount),
    converted_total_currency: req.converted_total_currency || undefined,
    description: req.description || undefined,
    reference: req.reference || undefined,
    callback_url: req.callback_url || undefined,
    customer: customerOf(req.customer),
    metadata: metadataOf(req.metadata),
    preview: req.preview,
    sub_merchant_id: req.sub_merchant_id || undefined,
  };
}

/** Charges, refunds and the sandbox outcome helper: decode, call the use case, encode. */
export function paymentsHandlers(
  charges: ChargeService,
  outcomes: OutcomeService,
  refunds: RefundService,
): Partial<Handlers> {
  return {
    async CreateCharge(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const outcome = await charges.create(merchantId, requireMode(caller), toChargeRequest(req), {
        idempotencyKey: req.idempotency_key || undefined,
        deadline,
      });
      if (outcome.kind === 'preview') return { preview: toWire(outcome.preview), replayed: false };
      return { charge: toWire(outcome.charge), replayed: outcome.replayed };
    },
    async SimulateChargeOutcome(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const outcome = req.outcome === 'succeed' || req.outcome === 'fail' ? req.outcome : undefined;
      if (!outcome)
        throw new PlatformError('VALIDATION_FAILED', 'outcome must be succeed or fail', { param: 'outcome' });
      return toWire(
        await outcomes.simulate(merchantId, requireMode(caller), req.charge_id, outcome, req.failure_reason),
      );
    },
    async CreateRefund(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const { charge, refund, replayed } = await refunds.create(
        merchantId,
        requireMode(caller),
        req.charge_id,
        { amount: present(req._amount, req.amount), reason: req.reason || undefined },
        { idempotencyKey: req.idempotency_key || undefined, deadline },
      );
      return { refund: toWire(refundResource(charge.charge_id, refund)), replayed };
    },
    async ListRefunds(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return toWire(chargeRefundsResource(await refunds.list(merchantId, requireMode(caller), req.charge_id)));
    },
  };
}
