import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerToMetadata } from '@ppay/kernel';
import type { GatewayDeps } from '../app';
import { userTokenAuth } from '../auth/hooks';
import { ok } from '../http/envelope';
import { COMMON_ERRORS, successOf } from '../http/schemas';

const PayoutParams = Type.Object({
  merchantId: Type.Integer({ minimum: 1 }),
  reference: Type.String({ minLength: 1, maxLength: 255 }),
});
const RejectBody = Type.Object({ reason: Type.String({ minLength: 3, maxLength: 500 }) });
const tags = ['Marketplace payouts (dashboard)'];
const security = [{ userToken: [] }];
const response = { 200: successOf(Type.Object({}, { additionalProperties: true })), ...COMMON_ERRORS };

/** Spec 4.10: operator approval of staged payouts, with the user token and X-Environment. */
export async function registerDashboardRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace } = deps.clients;
  app.addHook('preValidation', userTokenAuth(deps, { environmentHeader: true }));

  app.post<{ Params: Static<typeof PayoutParams> }>(
    '/merchants/:merchantId/payouts/:reference/approve',
    { schema: { tags, security, summary: 'Approve a staged payout request', params: PayoutParams, response } },
    async (req) =>
      ok(
        await marketplace.call(
          'ApprovePayout',
          { merchant_id: req.params.merchantId, reference: req.params.reference, environment: req.caller.mode },
          callerToMetadata(req.caller),
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
        response,
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
          callerToMetadata(req.caller),
        ),
      ),
  );
}
