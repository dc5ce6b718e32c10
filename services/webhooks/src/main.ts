import './instrument';
import { ensureIndexes, OutboxRelay, runService, SecretBox } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { webhooksConfig } from './config';
import { ApiKeyService } from './domain/api-keys';
import { KeyHasher } from './domain/credentials';
import { deliveryMetrics } from './events/metrics';
import { webhooksHandlers } from './grpc/handlers';
import { apiKeyModel, MongoApiKeyRepository } from './repo/api-key-repo';

void runService<types.webhooks.WebhooksServiceHandlers, (typeof webhooksConfig)['properties']>({
  name: 'webhooks',
  extraConfig: webhooksConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    // Registered now so dashboards see the series; the delivery worker will record into them.
    deliveryMetrics(metrics.registry);
    const model = apiKeyModel(mongo);
    await ensureIndexes([model]);
    const relay = new OutboxRelay(model, nats, log, metrics);
    const repo = new MongoApiKeyRepository(model, (id) => relay.relaySoon(id));
    const keys = new ApiKeyService(
      repo,
      new KeyHasher(Buffer.from(config.API_KEY_PEPPER, 'base64')),
      new SecretBox(Buffer.from(config.SECRETS_ENCRYPTION_KEY, 'base64'), config.SECRETS_ENCRYPTION_KEY_ID),
    );
    return { handlers: webhooksHandlers(keys), relays: [relay] };
  },
});
