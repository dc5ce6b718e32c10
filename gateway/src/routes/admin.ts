import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { fillNulls } from '../http/nulls';
import { adminTokenSecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import { DecisionBody, KycParams, KycReview, KycReviewList, ReviewParams, ReviewQuery } from '../schemas/kyc';
import { AdminSettleParams, PayoutRequest } from '../schemas/payouts';

const tags = ['Platform admin: KYC review'];
const response = (data: Parameters<typeof successOf>[0]) => ({ 200: successOf(data), ...COMMON_ERRORS });

/**
 * The platform admin API (`/api/v1/admin`, admin token: a user token with the platform_admin role):
 * the live KYC review queue and its decisions (spec 3.3 review and revoke). Sandbox submissions never
 * appear here; they are decided with POST /api/v1/partner/sandbox/kyc/{id}/{action}.
 */
export async function registerAdminRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { kyc, payments } = deps.clients;

  app.post<{ Params: Static<typeof AdminSettleParams> }>(
    '/payouts/:merchantId/:reference/:outcome',
    {
      schema: {
        tags: ['Platform admin: settlement'],
        security,
        summary:
          "Settle a live withdrawal (payout_pending) with the processor's outcome: paid (final wallet debit) or failed (reservation released)",
        params: AdminSettleParams,
        response: response(PayoutRequest),
      },
    },
    async (req) =>
      ok(
        await payments.call(
          'SettlePayout',
          {
            merchant_id: req.params.merchantId,
            reference: req.params.reference,
            outcome: req.params.outcome,
            failure_reason: 'failed at the processor (platform admin)',
          },
          callerMetadata(req),
        ),
      ),
  );

  app.get<{ Querystring: Static<typeof ReviewQuery> }>(
    '/kyc/submissions',
    {
      schema: {
        tags,
        security,
        summary:
          'Live KYC submissions by status (default pending_review), oldest first; payout_change=pending lists the payout account changes waiting for review',
        querystring: ReviewQuery,
        response: response(KycReviewList),
      },
    },
    async (req) => {
      const { status, page, limit, payout_change } = req.query;
      const res = await kyc.call(
        'ListKycReviews',
        { status, page: { page, limit }, payout_change_pending: payout_change === 'pending' },
        callerMetadata(req),
      );
      return ok(fillNulls(KycReviewList, res));
    },
  );

  app.get<{ Params: Static<typeof ReviewParams> }>(
    '/kyc/submissions/:submission_id',
    {
      schema: {
        tags,
        security,
        summary: 'One live KYC submission with its evidence (numbers masked) and history',
        params: ReviewParams,
        response: response(KycReview),
      },
    },
    async (req) => ok(fillNulls(KycReview, await kyc.call('GetKycReview', req.params, callerMetadata(req)))),
  );

  app.post<{ Params: Static<typeof KycParams>; Body: Static<typeof DecisionBody> }>(
    '/kyc/submissions/:submission_id/:action',
    {
      schema: {
        tags,
        security,
        summary:
          'Decide a live KYC submission: approve, reject (reason), request_info (message) or revoke an approved one (reason); approve_payout_change or reject_payout_change (reason) a payout account change waiting for review',
        params: KycParams,
        body: DecisionBody,
        response: response(KycReview),
      },
    },
    async (req) =>
      ok(
        fillNulls(
          KycReview,
          await kyc.call(
            'DecideKyc',
            { ...req.params, reason: req.body?.reason, message: req.body?.message },
            callerMetadata(req),
          ),
        ),
      ),
  );
}
