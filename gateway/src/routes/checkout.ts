import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerToMetadata } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../deps';
import { toHttpError } from '../http/errors';
import { sendHostedPage } from '../http/hosted-page';
import { renderCancelled, renderCheckout, renderMessage } from '../checkout/page';

/**
 * The hosted checkout page behind a session's payment_url (spec 4.2). No API key: the session id
 * (`cs_` + 32 base62, ~190 bits) is the capability. HTML forms without JavaScript, posted to this
 * same origin; the page is never cached, never framed, and sends no Referer to the merchant.
 */
const SESSION_ID = /^cs_[A-Za-z0-9]{32}$/;
const FORM_BODY_LIMIT = 8 * 1024;

type View = types.payments.CheckoutView__Output;

interface PayBody {
  card_number?: unknown;
  expiry?: unknown;
  cvc?: unknown;
  name?: unknown;
  [shipping: `ship_${string}`]: unknown;
}

/** The shipping fields of the form (a physical product), each cut to what payments would accept. */
const SHIPPING_FIELDS = ['name', 'line1', 'line2', 'city', 'state', 'postal_code', 'country', 'phone'] as const;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Forms may post back here and to the partner's success/cancel origins; card brand images are ours. */
const html = (reply: FastifyReply, status: number, render: (nonce: string) => string, view?: View) =>
  sendHostedPage(reply, status, render, { formTargets: view?.redirect_origins ?? [], selfImages: true });

const statusForView = (v: View) => (v.status === 'expired' ? 410 : 200);

export async function registerCheckoutRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments } = deps.clients;
  // Plain HTML forms post urlencoded bodies; only in this scope (the API stays JSON-only).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  // The checkout RPCs carry no merchant: only the request id travels (for logs and traces).
  const md = (req: FastifyRequest) => callerToMetadata({ requestId: req.caller.requestId });

  const notFound = (reply: FastifyReply) =>
    html(reply, 404, (n) =>
      renderMessage('Checkout not found', 'This checkout link is not valid. Return to the merchant and try again.', n),
    );

  /** Errors become pages: the current state of the session when there is one, a message otherwise. */
  const failure = async (
    req: FastifyRequest,
    reply: FastifyReply,
    sessionId: string,
    err: unknown,
    name = '',
    shipping?: Record<string, string>,
  ) => {
    const http = toHttpError(err, req.id, () => 1);
    if (http.statusCode === 404) return notFound(reply);
    if (http.statusCode >= 500) {
      if (http.statusCode !== 503) req.log.error({ err }, 'checkout failed');
      if (http.retryAfterSeconds) reply.header('retry-after', String(http.retryAfterSeconds));
      return html(reply, http.statusCode, (n) =>
        renderMessage(
          'Temporarily unavailable',
          'We could not reach the payment service. Please try again shortly.',
          n,
        ),
      );
    }
    let view: View;
    try {
      view = await payments.call('GetCheckout', { session_id: sessionId }, md(req));
    } catch {
      return html(reply, http.statusCode, (n) => renderMessage('Checkout error', http.body.message, n));
    }
    const status = view.status === 'expired' ? 410 : http.statusCode;
    return html(
      reply,
      status,
      (n) => renderCheckout(view, { nonce: n, error: http.body.message, name, shipping }),
      view,
    );
  };

  app.get<{ Params: { session_id: string } }>(
    '/checkout/:session_id',
    { schema: { hide: true } },
    async (req, reply) => {
      const id = req.params.session_id;
      if (!SESSION_ID.test(id)) return notFound(reply);
      try {
        const view = await payments.call('GetCheckout', { session_id: id }, md(req));
        // A live session is paid on its processor's page: a link to ours (an older payment_url, a
        // bookmark) goes there while the session is open, and shows the outcome once it is not.
        if (view.processor_payment_url && view.status === 'pending') {
          return reply
            .header('referrer-policy', 'no-referrer')
            .header('cache-control', 'no-store')
            .redirect(view.processor_payment_url, 303);
        }
        return html(reply, statusForView(view), (n) => renderCheckout(view, { nonce: n }), view);
      } catch (err) {
        return failure(req, reply, id, err);
      }
    },
  );

  app.post<{ Params: { session_id: string }; Body: PayBody | undefined }>(
    '/checkout/:session_id/pay',
    { schema: { hide: true } },
    async (req, reply) => {
      const id = req.params.session_id;
      if (!SESSION_ID.test(id)) return notFound(reply);
      const b = req.body ?? {};
      const name = str(b.name).slice(0, 100);
      const shipping = Object.fromEntries(SHIPPING_FIELDS.map((f) => [f, str(b[`ship_${f}`]).slice(0, 400)])) as Record<
        (typeof SHIPPING_FIELDS)[number],
        string
      >;
      try {
        const res = await payments.call(
          'PayCheckout',
          {
            session_id: id,
            card: { number: str(b.card_number), expiry: str(b.expiry), cvc: str(b.cvc), name },
            shipping,
          },
          md(req),
          { deadlineMs: deps.config.GRPC_PAYMENT_DEADLINE_MS },
        );
        const view = res.checkout!;
        if (res.result === 'succeeded') {
          return reply
            .header('referrer-policy', 'no-referrer')
            .header('cache-control', 'no-store')
            .redirect(res.redirect_url || `/checkout/${encodeURIComponent(id)}`, 303);
        }
        // Declined: the customer may try another card (402), unless the session has now failed. Sold out:
        // nothing was charged (409).
        const status = res.result === 'sold_out' ? 409 : 402;
        return html(
          reply,
          status,
          (n) =>
            renderCheckout(view, { nonce: n, error: res.message, name, shipping, soldOut: res.result === 'sold_out' }),
          view,
        );
      } catch (err) {
        return failure(req, reply, id, err, name, shipping);
      }
    },
  );

  app.post<{ Params: { session_id: string } }>(
    '/checkout/:session_id/cancel',
    { schema: { hide: true } },
    async (req, reply) => {
      const id = req.params.session_id;
      if (!SESSION_ID.test(id)) return notFound(reply);
      try {
        const res = await payments.call('CancelCheckout', { session_id: id }, md(req));
        if (res.redirect_url) {
          return reply.header('referrer-policy', 'no-referrer').redirect(res.redirect_url, 303);
        }
        const view = res.checkout!;
        return html(reply, 200, (n) => renderCancelled(view, n), view);
      } catch (err) {
        return failure(req, reply, id, err);
      }
    },
  );
}
