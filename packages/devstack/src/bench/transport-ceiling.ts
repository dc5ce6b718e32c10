import * as grpc from '@grpc/grpc-js';
import Fastify from 'fastify';
import { serveForBench } from './serve';

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

function clientFor(address: string): (request: Buffer) => Promise<Buffer> {
  const client = new Client(address, grpc.credentials.createInsecure()) as unknown as {
    Call(req: Buffer, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: Error | null, res: Buffer) => void): void;
  };
  return (request) =>
    new Promise((resolve, reject) =>
      client.Call(request, new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
}

function serve(port: number, handle: (request: Buffer) => Promise<Buffer>): void {
  const server = new grpc.Server();
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

if (role === 'leaf') {
  serve(port, async () => body);
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
