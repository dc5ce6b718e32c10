import type { ServerResponse } from 'node:http';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge } from 'prom-client';
import { PlatformError } from '@ppay/kernel';
import { RemoteCallError, type PlatformMetrics } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { apiKeySecurity as security, COMMON_ERRORS, CURSOR_PATTERN } from '../schemas/common';
import { EventStreamEvent } from '../schemas/events';

/**
 * GET /events/stream (for the `listen` CLI): the calling key's events as they happen, as
 * Server-Sent Events. The gateway polls the webhooks service with a cursor (one call in flight per
 * connection, at most 100 events per call) and writes one frame per event; the frame carries the
 * exact envelope a delivery to this key would carry, unsigned. Comment heartbeats keep proxies from
 * closing an idle stream; a connection lives at most STREAM_LIMITS.maxLifetimeMs, and the client
 * resumes with Last-Event-ID (each frame's `id` is the cursor after it).
 */
export const STREAM_LIMITS = {
  pollIntervalMs: 1_000,
  heartbeatMs: 15_000,
  maxLifetimeMs: 60 * 60 * 1000,
  perKey: 5,
  /** All keys of one merchant and mode together (H2-3). */
  perMerchant: 10,
  perProcess: 1_000,
  /** Retry-After of a refused stream: open streams end within the hour, most much sooner. */
  retryAfterSeconds: 30,
};

export const EventStreamQuery = Type.Object(
  {
    type: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: '^[a-z_.,]+$',
        description: 'Only these event types (comma-separated), e.g. payment.succeeded,payment.failed',
      }),
    ),
  },
  { additionalProperties: false },
);

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: CURSOR_PATTERN,
      description: 'Resume after this frame id (SSE reconnection)',
    }),
  ),
});

type StreamedEvent = types.webhooks.StreamedEvent__Output;

/** One SSE frame per event; `data` is a single JSON line (the envelope is JSON text inside it). */
export function eventFrame(e: StreamedEvent): string {
  const data = JSON.stringify({
    event_id: e.event_id,
    event_type: e.event_type,
    api_version: e.api_version,
    body: e.body,
  });
  return `id: ${e.cursor}\nevent: ${e.event_type}\ndata: ${data}\n\n`;
}

export function errorFrame(code: string, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ code, message })}\n\n`;
}

/** First frame: where the stream starts, so a client that saw no event yet can still resume from here. */
export function readyFrame(cursor: string): string {
  return `id: ${cursor}\nevent: ready\ndata: {}\n\n`;
}

export const HEARTBEAT_FRAME = ': heartbeat\n\n';

/** Open streams per key, per merchant and per process, within STREAM_LIMITS; exported as metrics for operators. */
class StreamCounter {
  private total = 0;
  private readonly perKey = new Map<string, number>();
  private readonly perMerchant = new Map<string, number>();
  private readonly openGauge: Gauge;
  private readonly refused: Counter<'limit'>;

  constructor(metrics: PlatformMetrics) {
    this.openGauge = new Gauge({
      name: 'ppay_gateway_event_streams_open',
      help: 'Event streams (GET /events/stream, the listen CLI) open on this gateway process',
      registers: [metrics.registry],
    });
    this.refused = new Counter({
      name: 'ppay_gateway_event_streams_refused_total',
      help: 'Event streams refused with 429, by the limit reached (per key, merchant or process)',
      labelNames: ['limit'],
      registers: [metrics.registry],
    });
  }

  /** Opens a stream of `key` (of `merchant`, its merchant and mode), or names the limit it reached. */
  tryOpen(key: string, merchant: string): 'key' | 'merchant' | 'process' | null {
    const limit =
      (this.perKey.get(key) ?? 0) >= STREAM_LIMITS.perKey
        ? 'key'
        : (this.perMerchant.get(merchant) ?? 0) >= STREAM_LIMITS.perMerchant
          ? 'merchant'
          : this.total >= STREAM_LIMITS.perProcess
            ? 'process'
            : null;
    if (limit) {
      this.refused.inc({ limit });
      return limit;
    }
    bump(this.perKey, key, 1);
    bump(this.perMerchant, merchant, 1);
    this.total++;
    this.openGauge.set(this.total);
    return null;
  }

  close(key: string, merchant: string): void {
    bump(this.perKey, key, -1);
    bump(this.perMerchant, merchant, -1);
    this.total--;
    this.openGauge.set(this.total);
  }
}

function bump(counts: Map<string, number>, name: string, by: 1 | -1): void {
  const n = (counts.get(name) ?? 0) + by;
  if (n > 0) counts.set(name, n);
  else counts.delete(name);
}

/** Resolves after `ms`, or as soon as the client goes away. */
function pause(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

/** Writes a frame; when the socket's buffer is full, waits for it to drain (or the client to leave). */
function write(res: ServerResponse, frame: string): Promise<void> {
  if (res.destroyed || res.writableEnded || res.write(frame)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** Responses as `application/json` content: the route's 200 is not JSON, so nothing is implied. */
function jsonContent<T extends Record<number, TSchema & { headers?: unknown; description?: string }>>(responses: T) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, { headers, description, ...schema }]) => [
      status,
      {
        description: description ?? 'Error',
        ...(headers ? { headers } : {}),
        content: { 'application/json': { schema } },
      },
    ]),
  );
}

export async function registerEventStreamRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { webhooks } = deps.clients;
  const open = new StreamCounter(deps.metrics);
  // Streams never end by themselves: on shutdown tell each client to reconnect (to another gateway)
  // and end it, or app.close() would wait for the longest one.
  const live = new Set<ServerResponse>();
  app.addHook('preClose', async () => {
    for (const res of live) res.end(errorFrame('SERVICE_UNAVAILABLE', 'The gateway is restarting; reconnect'));
  });

  app.get<{ Querystring: Static<typeof EventStreamQuery>; Headers: Static<typeof EventStreamHeaders> }>(
    '/events/stream',
    {
      schema: {
        tags: ['Events'],
        security,
        summary: 'Stream your events as they happen (Server-Sent Events; used by `npm run merchant -- listen`)',
        description:
          'Each event is one frame: `id` (resume with Last-Event-ID), `event` (the event type) and `data`, a JSON ' +
          'object {event_id, event_type, api_version, body} where body is the envelope exactly as a delivery to ' +
          "this key carries it (the key's api_version), unsigned. Comment lines are heartbeats; an `error` frame " +
          'ends the stream; the first frame is `ready`. Only events created after the stream starts (or after Last-Event-ID) are sent.',
        querystring: EventStreamQuery,
        headers: EventStreamHeaders,
        response: {
          200: {
            description: 'An endless text/event-stream of frames (x-sse-frame: EventStreamFrame)',
            content: {
              'text/event-stream': {
                schema: EventStreamEvent,
                'x-sse-frame': { $ref: '#/components/schemas/EventStreamFrame' },
              },
            },
          },
          // Errors come before the first byte, as JSON.
          ...jsonContent(COMMON_ERRORS),
        },
      },
    },
    async (req, reply) => {
      const md = callerMetadata(req);
      const types = req.query.type ? req.query.type.split(',').filter(Boolean) : [];
      const keyId = req.caller.apiKeyId ?? '';
      const merchant = `${req.caller.merchantId}:${req.caller.mode}`;
      // The first poll happens before a byte is sent, so a bad cursor or key is an ordinary JSON error.
      const resumeFrom = req.headers['last-event-id'];
      let page = await webhooks.call('PollEvents', { types, cursor: resumeFrom }, md);
      const limit = open.tryOpen(keyId, merchant);
      if (limit) {
        throw new PlatformError('EVENT_STREAM_LIMIT_REACHED', undefined, {
          detail:
            limit === 'process'
              ? 'this gateway has all the streams it can hold; retry (another gateway may answer)'
              : `at most ${limit === 'key' ? `${STREAM_LIMITS.perKey} per key` : `${STREAM_LIMITS.perMerchant} per merchant and mode`} on each gateway; close one first`,
          retryAfterSeconds: STREAM_LIMITS.retryAfterSeconds,
        });
      }
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': String(req.id),
      });
      res.flushHeaders();
      live.add(res);
      await write(res, readyFrame(page.events.length && resumeFrom ? resumeFrom : page.cursor));
      const deadline = Date.now() + STREAM_LIMITS.maxLifetimeMs;
      let lastWrite = Date.now();
      try {
        for (;;) {
          for (const event of page.events) await write(res, eventFrame(event));
          if (page.events.length) lastWrite = Date.now();
          if (res.destroyed || res.writableEnded || Date.now() >= deadline) break;
          // A full page means more are waiting: fetch again at once.
          if (page.events.length < 100) await pause(res, STREAM_LIMITS.pollIntervalMs);
          if (res.destroyed || res.writableEnded) break;
          if (Date.now() - lastWrite >= STREAM_LIMITS.heartbeatMs) {
            await write(res, HEARTBEAT_FRAME);
            lastWrite = Date.now();
          }
          try {
            page = await webhooks.call('PollEvents', { types, cursor: page.cursor }, md);
          } catch (err) {
            // The client resumes from its last frame id; the error says whether that is worth it.
            const code = err instanceof RemoteCallError || err instanceof PlatformError ? err.code : 'INTERNAL';
            req.log.warn({ err }, 'event stream poll failed; closing the stream');
            await write(
              res,
              errorFrame(code, err instanceof PlatformError ? err.message : 'The stream was interrupted'),
            );
            break;
          }
        }
      } finally {
        live.delete(res);
        open.close(keyId, merchant);
        if (!res.destroyed) res.end();
      }
    },
  );
}
