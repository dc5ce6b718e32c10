import { requireMerchant } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { apiKeyResource, type ApiKeyRecord } from './api-key';
import type { ApiKeyService } from './api-keys';

type Handlers = UnaryHandlers<types.webhooks.WebhooksServiceHandlers>;

const apiKey = (record: ApiKeyRecord) => toWire(apiKeyResource(record));

/** API key management and authentication over gRPC: decode, call the use case, encode. */
export function apiKeyHandlers(keys: ApiKeyService): Handlers {
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
        { expire_previous: req.expire_previous ?? false },
      );
      return { id: record.id, webhook_secret: webhookSecret, webhook_secret_hint: record.webhook_secret_hint };
    },
    async AuthenticateApiKey(req) {
      const key = await keys.authenticate(req.api_key);
      return { key_id: key.id, merchant_id: key.merchant_id, mode: key.mode, api_version: key.api_version };
    },
  };
}
