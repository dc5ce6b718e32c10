import { requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { customerOf, metadataOf } from '../charges/payment-request.handlers';
import { sessionResource } from './session';
import type { SessionRequest } from './session-request';
import type { SessionService } from './sessions';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

function toSessionRequest(req: types.payments.CreateSessionRequest__Output): SessionRequest {
  return {
    // Set iff the partner sent an amount (spec 7.1: "amount is required").
    amount: req.amount?.amount,
    currency: req.amount?.currency || req.unpaired_currency || undefined,
    product_id: req.product_id || undefined,
    product_name: req.product_name || undefined,
    customer: customerOf(req.customer),
    success_url: req.success_url || undefined,
    cancel_url: req.cancel_url || undefined,
    subscription_frequency_key: req.subscription_frequency_key || undefined,
    trial_days: req.trial_days || undefined,
    // Set iff the partner sent `installments` (its fields as sent; the service validates them).
    installments: req.installments ? { count: req.installments.count, interval: req.installments.interval } : undefined,
    quantity: req.quantity || undefined,
    variation_id: req.variation_id || undefined,
    metadata: metadataOf(req.metadata),
    idempotency_key: req.idempotency_key || undefined,
  };
}

/** Session RPCs (partner-authenticated) and the hosted checkout RPCs (the session id is the capability). */
export function sessionHandlers(sessions: SessionService): Partial<Handlers> {
  return {
    async CreateSession(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const { session } = await sessions.create(merchantId, requireMode(caller), toSessionRequest(req));
      return toWire(sessionResource(session, new Date()));
    },
    async GetSession(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return toWire(sessionResource(await sessions.get(merchantId, requireMode(caller), req.session_id), new Date()));
    },
    async GetCheckout(req) {
      return toWire(await sessions.page(req.session_id));
    },
    async PayCheckout(req) {
      const card = {
        number: req.card?.number ?? '',
        expiry: req.card?.expiry ?? '',
        cvc: req.card?.cvc ?? '',
        name: req.card?.name ?? '',
      };
      return toWire(await sessions.payOnPage(req.session_id, card, req.shipping ?? undefined));
    },
    async CancelCheckout(req) {
      return toWire(await sessions.cancel(req.session_id));
    },
  };
}
