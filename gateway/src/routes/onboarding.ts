import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerToMetadata } from '@ppay/runtime';
import type { GatewayDeps } from '../deps';
import { toHttpError } from '../http/errors';
import { sendHostedPage } from '../http/hosted-page';
import { onboardingUrl } from '../onboarding/onboarding-url';
import { renderOnboarding, renderOnboardingMessage } from '../onboarding/page';

/**
 * The hosted onboarding page behind a connected-account onboarding_url (spec 4.9). No API key: the
 * link token (`onb_` + 32 base62, ~190 bits) is the capability; it is single-use and expires, and an
 * expired, used or superseded link sends the merchant (303) to the partner's refresh_url. Completing
 * or abandoning sends it to return_url. HTML forms without JavaScript, posted to this same origin; the
 * page is never cached or framed, and sends no Referer (the token stays out of partners' logs).
 */
const TOKEN = /^onb_[A-Za-z0-9]{32}$/;
const FORM_BODY_LIMIT = 1024;
const ACTIONS = new Set(['complete', 'reject', 'abandon']);

const html = (reply: FastifyReply, status: number, render: (nonce: string) => string, redirectOrigins: string[] = []) =>
  sendHostedPage(reply, status, render, { formTargets: redirectOrigins });

const redirect = (reply: FastifyReply, url: string) =>
  reply.header('referrer-policy', 'no-referrer').header('cache-control', 'no-store').redirect(url, 303);

export async function registerOnboardingRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { kyc } = deps.clients;
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  // The onboarding RPCs carry no merchant: only the request id travels (for logs and traces).
  const md = (req: FastifyRequest) => callerToMetadata({ requestId: req.caller.requestId });

  const notFound = (reply: FastifyReply) =>
    html(reply, 404, (n) =>
      renderOnboardingMessage(
        'Onboarding link not found',
        'This onboarding link is not valid. Return to the marketplace and ask for a new one.',
        n,
      ),
    );

  const failure = (req: FastifyRequest, reply: FastifyReply, err: unknown) => {
    const http = toHttpError(err, req.id, () => 1);
    if (http.statusCode === 404) return notFound(reply);
    if (http.statusCode >= 500) {
      if (http.statusCode !== 503) req.log.error({ err }, 'onboarding page failed');
      if (http.retryAfterSeconds) reply.header('retry-after', String(http.retryAfterSeconds));
      return html(reply, http.statusCode, (n) =>
        renderOnboardingMessage('Temporarily unavailable', 'Please try again in a moment.', n),
      );
    }
    return html(reply, http.statusCode, (n) => renderOnboardingMessage('Onboarding error', http.body.message, n));
  };

  app.get<{ Params: { token: string } }>('/onboarding/:token', { schema: { hide: true } }, async (req, reply) => {
    const token = req.params.token;
    if (!TOKEN.test(token)) return notFound(reply);
    try {
      const view = await kyc.call('GetOnboardingLink', { token, here_url: onboardingUrl(deps, token) }, md(req));
      if (view.state !== 'active') return redirect(reply, view.refresh_url);
      // Live: the gateway's own onboarding, at a link made for this visit.
      if (view.gateway_url) return redirect(reply, view.gateway_url);
      return html(reply, 200, (n) => renderOnboarding(view, token, n), view.redirect_origins);
    } catch (err) {
      return failure(req, reply, err);
    }
  });

  app.post<{ Params: { token: string }; Body: { action?: unknown } | undefined }>(
    '/onboarding/:token',
    { schema: { hide: true } },
    async (req, reply) => {
      const token = req.params.token;
      if (!TOKEN.test(token)) return notFound(reply);
      const action = req.body?.action;
      if (typeof action !== 'string' || !ACTIONS.has(action)) {
        return html(reply, 400, (n) =>
          renderOnboardingMessage('Onboarding error', 'Choose to complete the onboarding or to return later.', n),
        );
      }
      try {
        const res = await kyc.call('FinishOnboardingLink', { token, outcome: action }, md(req));
        return redirect(reply, res.redirect_url);
      } catch (err) {
        return failure(req, reply, err);
      }
    },
  );
}
