import { requireMerchant, type UnaryHandlers } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { ApiKeyRecord, ApiKeyService } from '../domain/api-keys';

type Handlers = UnaryHandlers<types.webhooks.WebhooksServiceHandlers>;

function toApiKey(record: ApiKeyRecord): types.webhooks.ApiKey {
  return {
    id: record.id,
    merchant_id: record.merchant_id,
    mode: record.mode,
    name: record.name,
    masked_key: record.masked_key,
    status: record.status,
    webhook_url: record.webhook_url ?? '',
    api_version: record.api_version,
    webhook_secret_hint: record.webhook_secret_hint,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
    revoked_at: record.revoked_at ? record.revoked_at.toISOString() : '',
  };
}

/** Thin gRPC adapters: decode, call the use case, map the result. */
export function webhooksHandlers(keys: ApiKeyService): Handlers {
  return {
    async CreateApiKey(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const created = await keys.create(merchantId, {
        mode: req.mode,
        name: req.name || undefined,
        webhook_url: req.webhook_url || undefined,
        api_version: req.api_version || undefined,
      });
      return { key: toApiKey(created.record), api_key: created.apiKey, webhook_secret: created.webhookSecret };
    },
    async ListApiKeys(_req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return { keys: (await keys.list(merchantId)).map(toApiKey) };
    },
    async RevokeApiKey(req, { caller }) {
      return toApiKey(await keys.revoke(requireMerchant(caller).merchantId, req.key_id));
    },
    async ToggleApiKeyStatus(req, { caller }) {
      return toApiKey(await keys.toggle(requireMerchant(caller).merchantId, req.key_id, req.enabled));
    },
    async UpdateWebhook(req, { caller }) {
      const updated = await keys.updateWebhook(requireMerchant(caller).merchantId, req.key_id, {
        webhook_url: req._webhook_url ? req.webhook_url : undefined,
        api_version: req._api_version ? req.api_version : undefined,
      });
      return toApiKey(updated);
    },
    async RegenerateWebhookSecret(req, { caller }) {
      const { record, webhookSecret } = await keys.regenerateWebhookSecret(
        requireMerchant(caller).merchantId,
        req.key_id,
      );
      return { key: toApiKey(record), webhook_secret: webhookSecret };
    },
    async AuthenticateApiKey(req) {
      const key = await keys.authenticate(req.api_key);
      return { key_id: key.id, merchant_id: key.merchant_id, mode: key.mode, api_version: key.api_version };
    },
  };
}
