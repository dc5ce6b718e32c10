import { PlatformError, requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { DeliveryStatus } from '../deliveries/delivery';
import type { EventLog } from './event-log';
import type { EventStream } from './event-stream';

type Handlers = UnaryHandlers<types.webhooks.WebhooksServiceHandlers>;

function dateParam(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new PlatformError('VALIDATION_FAILED', `${param} must be an ISO 8601 date`, { param });
  return date;
}

/** The partner's events (log, resends, the `listen` stream, webhook tests) over gRPC: decode, call the use case, encode. */
export function eventHandlers(log: EventLog, stream: EventStream): Handlers {
  return {
    async ListEvents(req, { caller }) {
      const page = await log.list(requireMerchant(caller).merchantId, requireMode(caller), {
        types: req.types.length ? req.types : undefined,
        from: dateParam(req.from, 'from'),
        to: dateParam(req.to, 'to'),
        delivery_status: req.delivery_status as DeliveryStatus | undefined,
        limit: req.limit,
        cursor: req.cursor,
      });
      return toWire(page);
    },
    async GetEvent(req, { caller }) {
      return toWire(await log.get(requireMerchant(caller).merchantId, requireMode(caller), req.event_id));
    },
    async ResendEvent(req, { caller }) {
      return toWire(await log.resend(requireMerchant(caller).merchantId, requireMode(caller), req.event_id));
    },
    async ListEventAttempts(req, { caller }) {
      const page = await log.attempts(
        requireMerchant(caller).merchantId,
        requireMode(caller),
        { event_id: req.event_id, delivery_id: req.delivery_id },
        { limit: req.limit, cursor: req.cursor },
      );
      return toWire(page);
    },
    async GetEventAttempt(req, { caller }) {
      return toWire(await log.attempt(requireMerchant(caller).merchantId, requireMode(caller), req));
    },
    async RecoverDeliveries(req, { caller }) {
      return log.recover(requireMerchant(caller).merchantId, requireMode(caller), {
        since: dateParam(req.since, 'since')!,
        until: dateParam(req.until, 'until'),
        dry_run: req.dry_run,
      });
    },
    async PollEvents(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return stream.poll(merchantId, requireMode(caller), caller.apiKeyId, {
        types: req.types.length ? req.types : undefined,
        cursor: req.cursor || undefined,
        limit: req.limit,
      });
    },
    async TestWebhook(req, { caller }) {
      const { event_id, url, result } = await log.ping(requireMerchant(caller).merchantId, req.key_id);
      return toWire({
        event_id,
        url,
        success: result.success,
        status: result.status,
        latency_ms: result.duration_ms,
        error_class: result.error_class,
        response_excerpt: result.response_excerpt,
      });
    },
  };
}
