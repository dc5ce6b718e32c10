import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import { PlanAdvanceBody, PlanData, PlanList, PlanListQuery, PlanParams } from '../schemas/installment-plans';

const tags = ['Installment plans'];
const one = { 200: successOf(PlanData), ...COMMON_ERRORS };
/** The sandbox clock charges a whole span of parts and retries before it answers. */
const ADVANCE_DEADLINE_MS = 60_000;

/**
 * Installment plans (issue 26): created when the first part of a session with `installments` is paid on
 * the hosted page; listed, read and cancelled here, and their clock moved in sandbox.
 */
export async function registerInstallmentPlanRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { subscriptions } = deps.clients;
  app.get<{ Querystring: Static<typeof PlanListQuery> }>(
    '/installment-plans',
    {
      schema: {
        tags,
        security,
        summary: 'List installment plans (newest first; filter by status, customer e-mail and time; cursor paging)',
        querystring: PlanListQuery,
        response: { 200: successOf(PlanList), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await subscriptions.call('ListInstallmentPlans', req.query, callerMetadata(req))),
  );
  app.get<{ Params: Static<typeof PlanParams> }>(
    '/installment-plans/:plan_id',
    {
      schema: {
        tags,
        security,
        summary: 'Get an installment plan: its schedule with each part’s status, charge, paid and remaining amounts',
        params: PlanParams,
        response: one,
      },
    },
    async (req) => ok(await subscriptions.call('GetInstallmentPlan', req.params, callerMetadata(req))),
  );
  app.post<{ Params: Static<typeof PlanParams> }>(
    '/installment-plans/:plan_id/cancel',
    {
      schema: {
        tags,
        security,
        summary: 'Cancel an installment plan: no later part is charged (paid parts are not refunded)',
        description:
          'An active plan → cancelled. Cancelling a cancelled plan answers it unchanged; a completed or defaulted ' +
          'plan is 409. A part being charged at that moment is recorded when its outcome arrives.',
        params: PlanParams,
        response: one,
      },
    },
    async (req) => ok(await subscriptions.call('CancelInstallmentPlan', req.params, callerMetadata(req))),
  );
  app.post<{ Params: Static<typeof PlanParams>; Body: Static<typeof PlanAdvanceBody> }>(
    '/sandbox/installment-plans/:plan_id/advance',
    {
      schema: {
        tags: ['Sandbox'],
        security,
        summary: "Sandbox keys only: move an installment plan's clock forward",
        description:
          'Every part, retry and event due up to `to` happens, in order, with the real scheduler and real ' +
          'payments, before the call answers with the plan.',
        params: PlanParams,
        body: PlanAdvanceBody,
        response: one,
      },
    },
    async (req) =>
      ok(
        await subscriptions.call(
          'AdvanceInstallmentPlanClock',
          { plan_id: req.params.plan_id, to: req.body.to },
          callerMetadata(req),
          { deadlineMs: ADVANCE_DEADLINE_MS },
        ),
      ),
  );
}
