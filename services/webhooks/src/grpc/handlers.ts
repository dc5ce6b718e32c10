import { PlatformError, requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { apiKeyResource, type ApiKeyRecord, type ApiKeyService } from '../domain/api-keys';
import type { EventLog } from '../domain/event-log';
import type { EventStream } from '../domain/event-stream';
import type { DeliveryStatus } from '../domain/webhook-event';

type Handlers = UnaryHandlers<types.webhooks.WebhooksServiceHandlers>;

const apiKey = (record: ApiKeyRecord) => toWire(apiKeyResource(record));

function dateParam(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new PlatformError('VALIDATION_FAILED', `${param} must be an ISO 8601 date`, { param });
  return date;
}

/** Thin gRPC adapters: decode, call the use case, encode. */
export function webhooksHandlers(keys: ApiKeyService, log: EventLog, stream: EventStream): Handlers {
  return {
    async CreateApiKey(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const created = await keys.create(merchantId, {
        mode: req.mode,
        name: req.name || undefined,
        webhook_url: req.webhook_url || undefined,
        api_version: req.api_version || undefined,
      });
      return { key: apiKey(created.record), api_key: created.apiKey, webhook_secret: created.webhookSecret };
    },
    async ListApiKeys(_req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return { keys: (await keys.list(merchantId)).map(apiKey) };
    },
    async RevokeApiKey(req, { caller }) {
      return apiKey(await keys.revoke(requireMerchant(caller).merchantId, req.key_id));
    },
    async ToggleApiKeyStatus(req, { caller }) {
      return apiKey(await keys.toggle(requireMerchant(caller).merchantId, req.key_id, req.enabled));
    },
    async UpdateWebhook(req, { caller }) {
      const updated = await keys.updateWebhook(requireMerchant(caller).merchantId, req.key_id, {
        webhook_url: req._webhook_url ? req.webhook_url : undefined,
        api_version: req._api_version ? req.api_version : undefined,
      });
      return apiKey(updated);
    },
    async RegenerateWebhookSecret(req, { caller }) {
      const { record, webhookSecret } = await keys.regenerateWebhookSecret(
        requireMerchant(caller).merchantId,
        req.key_id,
      );
      return { id: record.id, webhook_secret: webhookSecret, webhook_secret_hint: record.webhook_secret_hint };
    },
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
    async AuthenticateApiKey(req) {
      const key = await keys.authenticate(req.api_key);
      return { key_id: key.id, merchant_id: key.merchant_id, mode: key.mode, api_version: key.api_version };
    },
  };
}
