import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { COMMON_ERRORS, successOf, userTokenSecurity as security } from '../schemas/common';
import { ApprovedPayout, PayoutParams, RejectBody, RejectedPayout } from '../schemas/payouts';

const tags = ['Marketplace payouts (dashboard)'];
const response = (data: Parameters<typeof successOf>[0]) => ({ 200: successOf(data), ...COMMON_ERRORS });

/** Spec 4.10: operator approval of staged payouts, with the user token and X-Environment. */
export async function registerDashboardRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace } = deps.clients;

  app.post<{ Params: Static<typeof PayoutParams> }>(
    '/merchants/:merchantId/payouts/:reference/approve',
    {
      schema: {
        tags,
        security,
        summary: 'Approve a staged payout request',
        params: PayoutParams,
        response: response(ApprovedPayout),
      },
    },
    async (req) =>
      ok(
        await marketplace.call(
          'ApprovePayout',
          { merchant_id: req.params.merchantId, reference: req.params.reference, environment: req.caller.mode },
          callerMetadata(req),
        ),
      ),
  );
  app.post<{ Params: Static<typeof PayoutParams>; Body: Static<typeof RejectBody> }>(
    '/merchants/:merchantId/payouts/:reference/reject',
    {
      schema: {
        tags,
        security,
        summary: 'Reject a staged payout request',
        params: PayoutParams,
        body: RejectBody,
        response: response(RejectedPayout),
      },
    },
    async (req) =>
      ok(
        await marketplace.call(
          'RejectPayout',
          {
            merchant_id: req.params.merchantId,
            reference: req.params.reference,
            environment: req.caller.mode,
            reason: req.body.reason,
          },
          callerMetadata(req),
        ),
      ),
  );
}
