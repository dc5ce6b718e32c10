import type { FastifyInstance } from 'fastify';
import { callerToMetadata } from '@ppay/runtime';
import type { GatewayDeps } from '../deps';

/** Stripe's events are a few KB; its largest objects stay far below this. */
const EVENT_BODY_LIMIT = 256 * 1024;

/**
 * Where live processors post their events (`POST /api/v1/processors/stripe/webhooks`). No API key:
 * the processor's signature over the exact bytes is the credential, so the body is kept raw (a parsed
 * and re-serialised body would no longer match it) and payments verifies it. Not a partner route, so
 * not in the partner API's document.
 */
export async function registerProcessorEventRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: EVENT_BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );
  app.post('/api/v1/processors/stripe/webhooks', { schema: { hide: true } }, async (req, reply) => {
    const header = req.headers['stripe-signature'];
    const res = await deps.clients.payments.call(
      'ReceiveProcessorEvent',
      {
        processor: 'stripe',
        payload: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        signature: typeof header === 'string' ? header : '',
      },
      callerToMetadata({ requestId: req.caller.requestId }),
    );
    return reply.status(200).send({ received: true, outcome: res.outcome });
  });
}
