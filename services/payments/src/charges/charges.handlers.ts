import { requireMerchant, requireMode } from '@ppay/kernel';
import { dateOf, optionalOneOf } from '../request-fields';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { ChargeStatus } from './charge';
import type { ChargeQueries } from './charge-queries';
import { chargeResource } from './charge-resource';
import type { ChargeRequest, ChargeService } from './charges';
import type { OutcomeService } from './outcomes';
import { customerOf, metadataOf } from './payment-request.handlers';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

/**
 * The request as the partner sent it: each Money is set iff its amount was sent, so the amounts and
 * currencies the spec 7.1 rules look for are present exactly when the partner sent them.
 */
function toChargeRequest(req: types.payments.CreateChargeRequest__Output): ChargeRequest {
  return {
    amount: req.amount?.amount,
    currency: req.amount?.currency || undefined,
    total_amount: req.total?.amount,
    total_currency: req.total?.currency || undefined,
    converted_total_amount: req.converted_total?.amount,
    converted_total_currency: req.converted_total?.currency || req.unpaired_converted_total_currency || undefined,
    description: req.description || undefined,
    reference: req.reference || undefined,
    callback_url: req.callback_url || undefined,
    customer: customerOf(req.customer),
    metadata: metadataOf(req.metadata),
    preview: req.preview,
    sub_merchant_id: req.sub_merchant_id || undefined,
  };
}

const CHARGE_STATUSES: readonly ChargeStatus[] = ['initializing', 'pending', 'succeeded', 'failed'];

/** Charges: create, read, list, and the sandbox outcome helper: decode, call the use case, encode. */
export function chargeHandlers(
  charges: ChargeService,
  outcomes: OutcomeService,
  queries: ChargeQueries,
): Partial<Handlers> {
  return {
    async CreateCharge(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const outcome = await charges.create(merchantId, requireMode(caller), toChargeRequest(req), {
        idempotencyKey: req.idempotency_key || undefined,
        deadline,
      });
      if (outcome.kind === 'preview') return toWire({ preview: outcome.preview, replayed: false });
      return toWire({ charge: chargeResource(outcome.charge), replayed: outcome.replayed });
    },
    async SimulateChargeOutcome(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return toWire(
        chargeResource(
          await outcomes.simulate(merchantId, requireMode(caller), req.charge_id, req.outcome, req.failure_reason),
        ),
      );
    },
    async GetCharge(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return toWire(chargeResource(await queries.get(merchantId, requireMode(caller), req.charge_id)));
    },
    async ListCharges(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const page = await queries.list(merchantId, requireMode(caller), {
        status: optionalOneOf(CHARGE_STATUSES, req.status, 'status'),
        reference: req.reference || undefined,
        from: dateOf(req.from, 'from'),
        to: dateOf(req.to, 'to'),
        limit: req.limit || undefined,
        cursor: req.cursor || undefined,
      });
      return toWire({ ...page, charges: page.charges.map(chargeResource) });
    },
  };
}
