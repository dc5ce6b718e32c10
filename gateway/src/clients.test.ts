import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { loadPlatformProto } from '@ppay/proto';
import { loadConfig, PlatformMetrics } from '@ppay/runtime';
import { apiKeyLookup, createClients } from './clients';
import { gatewayConfigSchema, type GatewayConfig } from './config';

/**
 * The gateway's real clients against an in-process webhooks service whose GetEvent answers more
 * than grpc-js receives (4 MiB) and whose ListEvents never answers in time: one tenant's event log.
 */
describe('gateway clients: one tenant’s event log cannot take authentication down', () => {
  let server: grpc.Server;
  let config: GatewayConfig;
  const built: ReturnType<typeof createClients>[] = [];
  const fresh = () => {
    const clients = createClients(config, new PlatformMetrics('clients-test'));
    built.push(clients);
    return clients;
  };

  beforeAll(async () => {
    const proto = loadPlatformProto().ppay;
    server = new grpc.Server();
    server.addService(proto.webhooks.v1.WebhooksService.service, {
      GetEvent: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
        cb(null, { event_id: 'evt_big', data: 'x'.repeat(5 * 1024 * 1024) }),
      ListEvents: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => setTimeout(() => cb(null, { events: [] }), 400),
      ListApiKeys: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
        cb({ code: grpc.status.UNAVAILABLE, details: 'webhooks down' }),
      AuthenticateApiKey: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
        cb(null, { key_id: 'key_1', merchant_id: 42, mode: 'sandbox', api_version: '2026-03-27' }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    config = loadConfig(gatewayConfigSchema, {
      AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      WEBHOOKS_GRPC_ADDR: `127.0.0.1:${port}`,
      GRPC_DEADLINE_MS: '5000',
      BREAKER_VOLUME_THRESHOLD: '3',
      BREAKER_RESET_TIMEOUT_MS: '60000',
    }) as GatewayConfig;
  });

  afterAll(() => {
    for (const clients of built) for (const c of Object.values(clients)) c.close();
    server.forceShutdown();
  });

  it('oversized and slow event reads leave the webhooks breaker closed and keys authenticating', async () => {
    const clients = fresh();
    for (let i = 0; i < 5; i++) {
      await expect(clients.webhooks.call('GetEvent', { event_id: 'evt_big' })).rejects.toMatchObject({
        grpcCode: grpc.status.RESOURCE_EXHAUSTED,
      });
      // A tenant-sized read that misses its deadline (the call's own, as the client's would be).
      await expect(
        clients.webhooks.call('ListEvents', {} as never, undefined, { deadlineMs: 100 }),
      ).rejects.toMatchObject({
        grpcCode: grpc.status.DEADLINE_EXCEEDED,
      });
    }
    expect(clients.webhooks.breakerState).toBe('closed');
    await expect(apiKeyLookup(clients)('pk_sandbox_x')).resolves.toEqual({
      keyId: 'key_1',
      merchantId: 42,
      mode: 'sandbox',
      apiVersion: '2026-03-27',
    });
  });

  it('authentication has a breaker of its own: an outage seen by other calls does not refuse keys', async () => {
    const clients = fresh();
    for (let i = 0; i < 4; i++) await expect(clients.webhooks.call('ListApiKeys', {})).rejects.toThrow();
    expect(clients.webhooks.breakerState).toBe('open');
    expect(clients.authentication.breakerState).toBe('closed');
    expect(clients.authentication.target).toBe('webhooks-auth');
    await expect(apiKeyLookup(clients)('pk_sandbox_x')).resolves.toMatchObject({ merchantId: 42 });
  });
});
