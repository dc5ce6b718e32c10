import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import mongoose from 'mongoose';
import { connect } from 'nats';
import { serveForBench } from './serve';
import { stripeCall } from './stripe-ceiling';

/**
 * The transport ceiling of a benchmark case: the same request through a bare Fastify route that
 * makes one bare grpc-js unary call per hop (raw bytes, no protobuf, no auth, no metrics, no
 * breaker, no database) and answers with the same body. No design that makes one gRPC call per
 * request per hop with the mandated libraries can be faster on the same machine, so it separates
 * "the platform is slow" from "the transport is slow".
 *
 * Roles (argv[2]):
 *   front PORT NEXT   Fastify on PORT, one unary call to NEXT per request
 *   relay PORT NEXT   gRPC server on PORT, one unary call to NEXT per call
 *   leaf  PORT        gRPC server on PORT answering the body
 *
 * For cases that write (charge-create), the leaf also stores one document and publishes one JetStream
 * message per call (CEILING_MONGO_URI, CEILING_NATS_URL): the least any durable write path costs.
 * For the live charge (charge-create-live) it first creates the Stripe PaymentIntent the platform
 * creates, with the SDK directly (CEILING_STRIPE_API_BASE, CEILING_STRIPE_SECRET_KEY; stripe-ceiling.ts).
 */
const identity = (b: Buffer) => b;
const SERVICE: grpc.ServiceDefinition = {
  Call: {
    path: '/ppay.bench.Ceiling/Call',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};
const Client = grpc.makeGenericClientConstructor(SERVICE, 'Ceiling');

/** grpc-js channel and server options under test (`bench -- grpc-options`); none by default. */
const GRPC_OPTIONS = JSON.parse(process.env.CEILING_GRPC_OPTIONS ?? '{}') as grpc.ChannelOptions;
/** Channels per target, used round-robin (each its own HTTP/2 connection). */
const CHANNELS = Math.max(1, Number(process.env.CEILING_CHANNELS ?? 1));
/**
 * CEILING_CALL_METADATA=1 (`bench -- grpc-options` only): each call carries the caller context the
 * platform sends (request id, merchant, mode, auth kind, key id; kernel callerToMetadata), so the cost
 * of those HTTP/2 headers is measured apart from everything else the platform does per call.
 */
const CALLER_METADATA = process.env.CEILING_CALL_METADATA === '1';

function metadataForCall(): grpc.Metadata {
  const md = new grpc.Metadata();
  if (!CALLER_METADATA) return md;
  md.set('x-request-id', `req_${randomUUID().replace(/-/g, '')}`);
  md.set('x-ppay-merchant-id', '1000');
  md.set('x-ppay-mode', 'sandbox');
  md.set('x-ppay-auth', 'api_key');
  md.set('x-ppay-key-id', 'key_0123456789abcdef');
  return md;
}

type CeilingClient = {
  Call(req: Buffer, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: Error | null, res: Buffer) => void): void;
};

function clientFor(address: string): (request: Buffer) => Promise<Buffer> {
  // A separate subchannel pool per client, or grpc-js shares one connection between them.
  const options = CHANNELS > 1 ? { ...GRPC_OPTIONS, 'grpc.use_local_subchannel_pool': 1 } : GRPC_OPTIONS;
  const clients = Array.from(
    { length: CHANNELS },
    () => new Client(address, grpc.credentials.createInsecure(), options) as unknown as CeilingClient,
  );
  let next = 0;
  return (request) =>
    new Promise((resolve, reject) =>
      clients[next++ % CHANNELS]!.Call(request, metadataForCall(), { deadline: Date.now() + 5_000 }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
}

function serve(port: number, handle: (request: Buffer) => Promise<Buffer>): void {
  const server = new grpc.Server(GRPC_OPTIONS);
  server.addService(SERVICE, {
    Call: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      handle(call.request).then(
        (res) => callback(null, res),
        (err: Error) => callback({ code: grpc.status.UNAVAILABLE, details: err.message }),
      );
    },
  });
  server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    process.stdout.write('ready\n');
  });
  process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
}

const [role, portArg, next] = process.argv.slice(2);
const port = Number(portArg);
const body = Buffer.from(process.env.CEILING_BODY ?? '{"success":true}');

/** One insert and one acknowledged JetStream publish (file storage, like the platform's streams). */
async function durableWrite(mongoUri: string, natsUrl: string): Promise<(request: Buffer) => Promise<void>> {
  const conn = await mongoose.createConnection(mongoUri, { dbName: 'ppay_bench_ceiling' }).asPromise();
  const writes = conn.db!.collection<{ _id: string; body: string; at: Date }>('writes');
  const nc = await connect({ servers: natsUrl });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'BENCH_CEILING', subjects: ['bench.ceiling.>'] }).catch(async () => undefined);
  const js = nc.jetstream();
  return async (request) => {
    const id = randomUUID();
    await writes.insertOne({ _id: id, body: request.toString('utf8'), at: new Date() });
    await js.publish('bench.ceiling.written', request, { msgID: id });
  };
}

if (role === 'leaf') {
  const { CEILING_MONGO_URI, CEILING_NATS_URL, CEILING_STRIPE_API_BASE, CEILING_STRIPE_SECRET_KEY } = process.env;
  const processor =
    CEILING_STRIPE_API_BASE && CEILING_STRIPE_SECRET_KEY
      ? stripeCall(CEILING_STRIPE_API_BASE, CEILING_STRIPE_SECRET_KEY)
      : null;
  if (CEILING_MONGO_URI && CEILING_NATS_URL) {
    void durableWrite(CEILING_MONGO_URI, CEILING_NATS_URL).then((write) =>
      serve(port, async (request) => {
        if (processor) await processor();
        await write(request);
        return body;
      }),
    );
  } else {
    serve(port, async () => body);
  }
} else if (role === 'relay') {
  const call = clientFor(next!);
  serve(port, (request) => call(request));
} else if (role === 'front') {
  const call = clientFor(next!);
  const app = Fastify({ logger: false });
  app.route({
    method: (process.env.CEILING_METHOD ?? 'GET') as 'GET' | 'POST',
    url: process.env.CEILING_URL ?? '/',
    handler: async (req, reply) => {
      const request = Buffer.from(typeof req.body === 'object' ? JSON.stringify(req.body) : '');
      return reply.type('application/json').send(await call(request));
    },
  });
  serveForBench(app, port);
} else {
  process.stderr.write('usage: transport-ceiling front|relay|leaf PORT [NEXT]\n');
  process.exit(64);
}
