import { requireMerchant, requireMode, type UnaryHandlers } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { SessionRecord, SessionRequest, SessionService } from '../domain/sessions';
import { redirectWithSession } from '../domain/sessions';
import { customerOf, metadataOf } from './mapping';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

function toSessionRequest(req: types.payments.CreateSessionRequest__Output): SessionRequest {
  return {
    amount: req._amount ? req.amount : undefined,
    currency: req.currency || undefined,
    product_id: req.product_id || undefined,
    product_name: req.product_name || undefined,
    customer: customerOf(req.customer),
    success_url: req.success_url || undefined,
    cancel_url: req.cancel_url || undefined,
    subscription_frequency_key: req.subscription_frequency_key || undefined,
    metadata: metadataOf(req.metadata),
    idempotency_key: req.idempotency_key || undefined,
  };
}

function toSession(s: SessionRecord): types.payments.PaymentSession {
  return {
    session_id: s.id,
    gateway_session_id: s.gateway_session_id,
    // The gateway owns the public address and fills payment_url in (PUBLIC_BASE_URL/checkout/{id}).
    payment_url: '',
    expires_at: s.expires_at.toISOString(),
    amount: s.amount,
    currency: s.currency,
    status: s.status,
    mode: s.mode,
    payment_type: s.payment_type,
    fee_details: s.fee_details,
    created_at: s.created_at.toISOString(),
    completed_at: s.completed_at ? s.completed_at.toISOString() : '',
  };
}

/** Session RPCs (partner-authenticated) and the hosted checkout RPCs (the session id is the capability). */
export function sessionHandlers(
  sessions: SessionService,
  businessName: (merchantId: number) => Promise<string>,
): Handlers {
  const view = async (s: SessionRecord, lastDecline = ''): Promise<types.payments.CheckoutView> => ({
    session_id: s.id,
    status: s.status,
    mode: s.mode,
    merchant_id: s.merchant_id,
    business_name: await businessName(s.merchant_id),
    product_name: s.product.name,
    base_amount: s.fee_details.base_product_price,
    transaction_fee: s.fee_details.transaction_fee,
    amount: s.amount,
    currency: s.currency,
    customer_pays_fees: s.fee_details.customer_pays_fees,
    customer_email: s.customer.email,
    expires_at: s.expires_at.toISOString(),
    payment_type: s.payment_type,
    subscription_frequency_key: s.subscription_frequency_key ?? '',
    attempts_left: sessions.attemptsLeft(s),
    payments_enabled: s.mode === 'sandbox',
    test_cards: sessions.testCards(s.mode),
    has_success_url: Boolean(s.success_url),
    has_cancel_url: Boolean(s.cancel_url),
    last_decline_message: lastDecline,
    redirect_origins: [...new Set([s.success_url, s.cancel_url].filter(Boolean).map((u) => new URL(u).origin))],
  });
  return {
    async CreateSession(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const { session } = await sessions.create(merchantId, requireMode(caller), toSessionRequest(req));
      return toSession(session);
    },
    async GetSession(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return toSession(await sessions.get(merchantId, requireMode(caller), req.session_id));
    },
    async GetCheckout(req) {
      return view(await sessions.checkout(req.session_id));
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
          decline_code: '',
          message: '',
          checkout: await view(r.session),
          redirect_url: redirectWithSession(r.session.success_url, r.session.id),
        };
      }
      return {
        result: 'declined',
        decline_code: r.decline_code,
        message: r.message,
        checkout: await view(r.session, r.message),
        redirect_url: '',
      };
    },
    async CancelCheckout(req) {
      const s = await sessions.cancel(req.session_id);
      return { redirect_url: redirectWithSession(s.cancel_url, s.id), checkout: await view(s) };
    },
  };
}
