import { requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { redirectWithSession } from './redirects';
import { sessionResource } from './session';
import type { SessionRequest, SessionService } from './sessions';
import { customerOf, metadataOf, present } from '../charges/payment-request.handlers';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

function toSessionRequest(req: types.payments.CreateSessionRequest__Output): SessionRequest {
  return {
    amount: present(req._amount, req.amount),
    currency: req.currency || undefined,
    product_id: req.product_id || undefined,
    product_name: req.product_name || undefined,
    customer: customerOf(req.customer),
    success_url: req.success_url || undefined,
    cancel_url: req.cancel_url || undefined,
    subscription_frequency_key: req.subscription_frequency_key || undefined,
    trial_days: req.trial_days || undefined,
    metadata: metadataOf(req.metadata),
    idempotency_key: req.idempotency_key || undefined,
  };
}

/** Session RPCs (partner-authenticated) and the hosted checkout RPCs (the session id is the capability). */
export function sessionHandlers(sessions: SessionService): Handlers {
  return {
    async CreateSession(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const { session } = await sessions.create(merchantId, requireMode(caller), toSessionRequest(req));
      return toWire(sessionResource(session));
    },
    async GetSession(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return toWire(sessionResource(await sessions.get(merchantId, requireMode(caller), req.session_id)));
    },
    async GetCheckout(req) {
      return toWire(await sessions.view(await sessions.checkout(req.session_id)));
    },
    async PayCheckout(req) {
      const r = await sessions.pay(req.session_id, {
        number: req.card?.number ?? '',
        expiry: req.card?.expiry ?? '',
        cvc: req.card?.cvc ?? '',
        name: req.card?.name ?? '',
      });
      if (r.result === 'succeeded') {
        return {
          result: 'succeeded',
          checkout: toWire(await sessions.view(r.session)),
          redirect_url: redirectWithSession(r.session.success_url, r.session.session_id),
        };
      }
      return {
        result: 'declined',
        decline_code: r.decline_code,
        message: r.message,
        checkout: toWire(await sessions.view(r.session, r.message)),
      };
    },
    async CancelCheckout(req) {
      const s = await sessions.cancel(req.session_id);
      return {
        redirect_url: redirectWithSession(s.cancel_url, s.session_id),
        checkout: toWire(await sessions.view(s)),
      };
    },
  };
}
