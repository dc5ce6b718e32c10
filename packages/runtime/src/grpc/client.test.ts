import * as grpc from '@grpc/grpc-js';
import { PlatformError } from '@ppay/kernel';
import { createLogger } from '../logger';
import { ServiceClient, type ClientConstructor } from './client';
import { toServiceError } from './server';

/**
 * A real grpc-js server and client on loopback: one service whose `Big` answers as many bytes as
 * asked, `Slow` answers after the asked delay, and `Down` fails as a crashed target would.
 */
const passThrough = {
  requestSerialize: (v: Buffer) => v,
  requestDeserialize: (v: Buffer) => v,
  responseSerialize: (v: Buffer) => v,
  responseDeserialize: (v: Buffer) => v,
};
const definition = {
  Big: { path: '/test.Test/Big', requestStream: false, responseStream: false, ...passThrough },
  Slow: { path: '/test.Test/Slow', requestStream: false, responseStream: false, ...passThrough },
  Down: { path: '/test.Test/Down', requestStream: false, responseStream: false, ...passThrough },
  Quota: { path: '/test.Test/Quota', requestStream: false, responseStream: false, ...passThrough },
  Prose: { path: '/test.Test/Prose', requestStream: false, responseStream: false, ...passThrough },
} as unknown as grpc.ServiceDefinition;

type TestClient = grpc.Client & {
  Big: (req: Buffer, cb: grpc.requestCallback<Buffer>) => grpc.ClientUnaryCall;
  Slow: (req: Buffer, cb: grpc.requestCallback<Buffer>) => grpc.ClientUnaryCall;
  Down: (req: Buffer, cb: grpc.requestCallback<Buffer>) => grpc.ClientUnaryCall;
  Quota: (req: Buffer, cb: grpc.requestCallback<Buffer>) => grpc.ClientUnaryCall;
  Prose: (req: Buffer, cb: grpc.requestCallback<Buffer>) => grpc.ClientUnaryCall;
};
const TestClientCtor = grpc.makeGenericClientConstructor(
  definition,
  'Test',
) as unknown as ClientConstructor<TestClient>;

/** Error text as services write it: typographic quotes, accents, a percent sign, a line break. */
const PROSE = 'set a stock level first (the variation’s stock) — 8% of café\nnext line';

const breaker = {
  errorThresholdPercentage: 50,
  resetTimeoutMs: 60_000,
  rollingCountTimeoutMs: 10_000,
  volumeThreshold: 3,
};

describe('ServiceClient breaker: only the target’s own failures count', () => {
  let server: grpc.Server;
  let address: string;
  const clients: ServiceClient<TestClient>[] = [];

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(definition, {
      Big: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) =>
        cb(null, Buffer.alloc(call.request.readUInt32BE(0))),
      Slow: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) =>
        setTimeout(() => cb(null, Buffer.alloc(1)), call.request.readUInt32BE(0)),
      Down: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) =>
        cb({ code: grpc.status.UNAVAILABLE, details: 'down' }),
      Quota: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) =>
        cb(
          toServiceError(
            new PlatformError('RESEND_LIMIT_REACHED', undefined, { retryAfterSeconds: 42 }),
            createLogger('test', 'silent'),
          ),
        ),
      Prose: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) =>
        cb(
          toServiceError(
            new PlatformError('VALIDATION_FAILED', undefined, { param: 'variation’s', detail: PROSE }),
            createLogger('test', 'silent'),
          ),
        ),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    address = `127.0.0.1:${port}`;
  });

  afterAll(() => {
    for (const c of clients) c.close();
    server.forceShutdown();
  });

  const client = (tenantSizedMethods: string[] = []) => {
    const c = new ServiceClient<TestClient>('test', TestClientCtor, address, {
      deadlineMs: 2_000,
      breaker,
      tenantSizedMethods,
    });
    clients.push(c);
    return c;
  };
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };

  it('keeps the breaker closed when responses are over the receive limit (one request’s size, not the target)', async () => {
    const c = client();
    for (let i = 0; i < 5; i++) {
      await expect(c.call('Big', u32(5 * 1024 * 1024) as never)).rejects.toMatchObject({
        grpcCode: grpc.status.RESOURCE_EXHAUSTED,
      });
    }
    expect(c.breakerState).toBe('closed');
    await expect(c.call('Big', u32(10) as never)).resolves.toHaveLength(10);
  });

  it('keeps the breaker closed when a tenant-sized call or a call with the caller’s short budget times out', async () => {
    const sized = client(['Slow']);
    for (let i = 0; i < 4; i++) {
      await expect(sized.call('Slow', u32(500) as never, undefined, { deadlineMs: 50 })).rejects.toMatchObject({
        grpcCode: grpc.status.DEADLINE_EXCEEDED,
      });
    }
    expect(sized.breakerState).toBe('closed');

    const cut = client();
    for (let i = 0; i < 4; i++) {
      // The caller had 150 ms left (less the margin) of its own deadline: the budget is the request's.
      await expect(
        cut.call('Slow', u32(500) as never, undefined, { deadline: new Date(Date.now() + 150) }),
      ).rejects.toMatchObject({ grpcCode: grpc.status.DEADLINE_EXCEEDED });
    }
    expect(cut.breakerState).toBe('closed');
  });

  it('still opens on a target that is down or does not answer within the client’s own deadline', async () => {
    const down = client(['Slow']);
    for (let i = 0; i < 3; i++) await expect(down.call('Down', Buffer.alloc(0) as never)).rejects.toThrow();
    expect(down.breakerState).toBe('open');

    const slow = client();
    for (let i = 0; i < 3; i++) {
      await expect(slow.call('Slow', u32(500) as never, undefined, { deadlineMs: 50 })).rejects.toMatchObject({
        grpcCode: grpc.status.DEADLINE_EXCEEDED,
      });
    }
    expect(slow.breakerState).toBe('open');
  });

  it('carries a quota’s Retry-After across the call, and it never counts against the breaker', async () => {
    const c = client();
    for (let i = 0; i < 4; i++) {
      await expect(c.call('Quota', Buffer.alloc(0) as never)).rejects.toMatchObject({
        code: 'RESEND_LIMIT_REACHED',
        retryAfterSeconds: 42,
      });
    }
    const relayed = await c
      .call('Quota', Buffer.alloc(0) as never)
      .catch((err: { toPlatformError(): PlatformError }) => err.toPlatformError());
    expect(relayed).toMatchObject({ code: 'RESEND_LIMIT_REACHED', retryAfterSeconds: 42 });
    expect(c.breakerState).toBe('closed');
  });
  it('carries error details and params of any text to the caller (gRPC metadata is printable ASCII only)', async () => {
    await expect(client().call('Prose', u32(0) as never)).rejects.toMatchObject({
      errorCode: 'VALIDATION_FAILED',
      param: 'variation’s',
      detail: PROSE,
    });
  });
});
