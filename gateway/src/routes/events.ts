import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import {
  AttemptDetail,
  AttemptList,
  AttemptListQuery,
  AttemptParams,
  DeliveryParams,
  EventDetail,
  EventList,
  EventListQuery,
  EventParams,
  RecoverBody,
  RecoverResult,
} from '../schemas/events';

const tags = ['Events'];

/** The proto carries `data` as JSON text (free-form per event type); partners get the object. */
function withData<T extends { data?: string }>(event: T): Omit<T, 'data'> & { data: Record<string, unknown> } {
  return { ...event, data: event.data ? (JSON.parse(event.data) as Record<string, unknown>) : {} };
}

const eventOf = (e: types.webhooks.WebhookEvent__Output) => withData(e);

/**
 * The partner's event log (30 days): what was sent to which key, with every attempt's exact
 * bytes and headers, and resending. Scoped to the calling key's merchant and mode.
 */
export async function registerEventRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { webhooks } = deps.clients;

  app.get<{ Querystring: Static<typeof EventListQuery> }>(
    '/events',
    {
      schema: {
        tags,
        security,
        summary: 'List events (newest first; filter by type, time and delivery status; cursor paging)',
        querystring: EventListQuery,
        response: { 200: successOf(EventList), ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await webhooks.call(
        'ListEvents',
        {
          types: q.type ? q.type.split(',').filter(Boolean) : [],
          from: q.from,
          to: q.to,
          delivery_status: q.delivery_status,
          limit: q.limit,
          cursor: q.cursor,
        },
        callerMetadata(req),
      );
      return ok({ ...page, events: page.events.map(eventOf) });
    },
  );

  app.get<{ Params: Static<typeof EventParams> }>(
    '/events/:event_id',
    {
      schema: {
        tags,
        security,
        summary: 'An event with its deliveries and their newest attempts (headers and the first bytes sent)',
        params: EventParams,
        response: { 200: successOf(EventDetail), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(eventOf(await webhooks.call('GetEvent', { event_id: req.params.event_id }, callerMetadata(req)))),
  );

  app.get<{ Params: Static<typeof DeliveryParams>; Querystring: Static<typeof AttemptListQuery> }>(
    '/events/:event_id/deliveries/:delivery_id/attempts',
    {
      schema: {
        tags,
        security,
        summary: 'A delivery’s attempts, oldest first (cursor paging; request bodies cut to 2,048 characters)',
        params: DeliveryParams,
        querystring: AttemptListQuery,
        response: { 200: successOf(AttemptList), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await webhooks.call('ListEventAttempts', { ...req.params, ...req.query }, callerMetadata(req))),
  );

  app.get<{ Params: Static<typeof AttemptParams> }>(
    '/events/:event_id/deliveries/:delivery_id/attempts/:number',
    {
      schema: {
        tags,
        security,
        summary: 'One attempt with the whole request body it sent',
        params: AttemptParams,
        response: { 200: successOf(AttemptDetail), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await webhooks.call('GetEventAttempt', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof EventParams> }>(
    '/events/:event_id/resend',
    {
      schema: {
        tags,
        security,
        summary: 'Send an event again to every key that receives it (same event_id, a new round of 3 attempts)',
        params: EventParams,
        response: { 202: successOf(EventDetail), ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const event = await webhooks.call('ResendEvent', { event_id: req.params.event_id }, callerMetadata(req));
      return reply.status(202).send(ok(eventOf(event), 'Resend queued'));
    },
  );

  app.post<{ Body: Static<typeof RecoverBody> }>(
    '/webhooks/recover',
    {
      schema: {
        tags,
        security,
        summary: 'Resend every failed delivery created in [since, until] (dry_run only counts them)',
        body: RecoverBody,
        response: { 202: successOf(RecoverResult), ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const res = await webhooks.call('RecoverDeliveries', req.body, callerMetadata(req));
      return reply
        .status(202)
        .send(
          ok(res, res.dry_run ? `${res.count} failed deliveries would be resent` : `${res.count} deliveries queued`),
        );
    },
  );
}
