import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import {
  AdvanceBody,
  CancelData,
  CancelQuery,
  SandboxSubscriptionBody,
  SubscriptionData,
  SubscriptionList,
  SubscriptionParams,
  SubscriptionQuery,
} from '../schemas/subscriptions';

const tags = ['Subscriptions'];
const one = { 200: successOf(SubscriptionData), ...COMMON_ERRORS };
/** The sandbox clock runs a whole span of renewals before it answers. */
const ADVANCE_DEADLINE_MS = 60_000;

/** Spec 4.5, 4.6, plus pause/resume, one subscription, and the sandbox helpers (creation, clock). */
export async function registerSubscriptionRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { subscriptions } = deps.clients;
  app.get<{ Querystring: Static<typeof SubscriptionQuery> }>(
    '/subscriptions',
    {
      schema: {
        tags,
        security,
        summary: 'List subscriptions',
        description:
          'Filters status and product_id; sorted by created_at, next_payment, actual_price or payment_status ' +
          '(ties broken by created_at, then id, in the same order), newest first by default.',
        querystring: SubscriptionQuery,
        response: { 200: successOf(SubscriptionList), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await subscriptions.call('ListSubscriptions', req.query, callerMetadata(req))),
  );
  app.get<{ Params: Static<typeof SubscriptionParams> }>(
    '/subscriptions/:subscription_id',
    { schema: { tags, security, summary: 'Get a subscription', params: SubscriptionParams, response: one } },
    async (req) => ok(await subscriptions.call('GetSubscription', req.params, callerMetadata(req))),
  );
  app.patch<{ Params: Static<typeof SubscriptionParams>; Querystring: Static<typeof CancelQuery> }>(
    '/subscriptions/:subscription_id/cancel',
    {
      schema: {
        tags,
        security,
        summary: 'Cancel a subscription',
        description:
          'Active, pending, due or paused → cancelled now (cancelled_at). With at_period_end=true an active ' +
          'subscription keeps its paid period and is cancelled when it ends. Cancelling a cancelled subscription ' +
          'answers it unchanged.',
        params: SubscriptionParams,
        querystring: CancelQuery,
        response: { 200: successOf(CancelData), ...COMMON_ERRORS },
      },
    },
    async (req) =>
      ok(
        await subscriptions.call(
          'CancelSubscription',
          { ...req.params, at_period_end: req.query.at_period_end },
          callerMetadata(req),
        ),
      ),
  );
  app.patch<{ Params: Static<typeof SubscriptionParams> }>(
    '/subscriptions/:subscription_id/pause',
    {
      schema: {
        tags,
        security,
        summary: 'Pause an active or due subscription (no charges; paid access is kept)',
        params: SubscriptionParams,
        response: one,
      },
    },
    async (req) => ok(await subscriptions.call('PauseSubscription', req.params, callerMetadata(req))),
  );
  app.patch<{ Params: Static<typeof SubscriptionParams> }>(
    '/subscriptions/:subscription_id/resume',
    {
      schema: {
        tags,
        security,
        summary: 'Resume a paused subscription',
        description:
          'Active again while paid access (or the trial) lasts; otherwise due with an immediate charge attempt ' +
          'for a new period starting now.',
        params: SubscriptionParams,
        response: one,
      },
    },
    async (req) => ok(await subscriptions.call('ResumeSubscription', req.params, callerMetadata(req))),
  );

  app.post<{ Body: Static<typeof SandboxSubscriptionBody> }>(
    '/sandbox/subscriptions',
    {
      schema: {
        tags: ['Sandbox'],
        security,
        summary: 'Sandbox keys only: create an active subscription (or a trial) paid with a test card',
        body: SandboxSubscriptionBody,
        response: one,
      },
    },
    async (req) => {
      const { amount, currency, ...rest } = req.body;
      return ok(
        await subscriptions.call(
          'CreateSandboxSubscription',
          { ...rest, amount: { amount, currency } },
          callerMetadata(req),
        ),
      );
    },
  );
  app.post<{ Params: Static<typeof SubscriptionParams>; Body: Static<typeof AdvanceBody> }>(
    '/sandbox/subscriptions/:subscription_id/advance',
    {
      schema: {
        tags: ['Sandbox'],
        security,
        summary: "Sandbox keys only: move a subscription's clock forward",
        description:
          'Every renewal, retry, period-end cancellation and event due up to `to` happens, in order, with the ' +
          'real scheduler and real payments, before the call answers with the subscription.',
        params: SubscriptionParams,
        body: AdvanceBody,
        response: one,
      },
    },
    async (req) =>
      ok(
        await subscriptions.call(
          'AdvanceSandboxClock',
          { subscription_id: req.params.subscription_id, to: req.body.to },
          callerMetadata(req),
          { deadlineMs: ADVANCE_DEADLINE_MS },
        ),
      ),
  );
}
