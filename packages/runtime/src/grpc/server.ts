import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { deadlineDate, ERROR_TRAILERS, newRequestId, PlatformError, type CallerInfo } from '@ppay/kernel';
import { callerFromMetadata } from '../caller-metadata';
import type { Logger } from '../logger';
import type { PlatformMetrics } from '../metrics';
import { toTrailerText } from './trailer-text';

export interface CallContext {
  caller: CallerInfo;
  log: Logger;
  /** When the caller stops waiting (undefined: no deadline); pass it on to every downstream call. */
  deadline: Date | undefined;
}

type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

/**
 * Use-case-shaped handlers derived from the generated grpc-js handler interfaces: a handler takes
 * the decoded request and a context, and returns the response or throws a PlatformError.
 * Methods left out answer UNIMPLEMENTED.
 */
export type UnaryHandlers<H> = {
  [K in KnownKeys<H>]?: H[K] extends grpc.handleUnaryCall<infer Req, infer Res>
    ? (request: Req, ctx: CallContext) => Promise<Res>
    : never;
};

export type AnyHandler = (request: unknown, ctx: CallContext) => Promise<unknown>;

/** Catalogue → gRPC status: the service-side half of the error mapping. */
export function toServiceError(err: unknown, log: Logger): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  if (err instanceof PlatformError) {
    metadata.set(ERROR_TRAILERS.code, err.code);
    if (err.param) metadata.set(ERROR_TRAILERS.param, toTrailerText(err.param));
    if (err.detail) metadata.set(ERROR_TRAILERS.detail, toTrailerText(err.detail));
    if (err.retryAfterSeconds) metadata.set(ERROR_TRAILERS.retryAfter, String(err.retryAfterSeconds));
    return { code: err.grpcStatus, details: err.message, metadata };
  }
  log.error({ err }, 'unhandled error in gRPC handler');
  metadata.set(ERROR_TRAILERS.code, 'INTERNAL');
  return { code: grpc.status.INTERNAL, details: 'Internal error', metadata };
}

export interface BoundService {
  implementation: grpc.UntypedServiceImplementation;
  implemented: string[];
}

export function bindService(
  serviceName: string,
  definition: grpc.ServiceDefinition,
  handlers: Record<string, AnyHandler | undefined>,
  log: Logger,
  metrics: PlatformMetrics,
): BoundService {
  const implementation: grpc.UntypedServiceImplementation = {};
  const implemented: string[] = [];
  for (const [methodName, method] of Object.entries(definition)) {
    if (method.requestStream || method.responseStream) {
      throw new Error(`${serviceName}.${methodName}: only unary RPCs are supported by the runtime`);
    }
    const handler = handlers[methodName];
    if (handler) implemented.push(methodName);
    implementation[methodName] = (
      call: grpc.ServerUnaryCall<unknown, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const stopTimer = metrics.grpcServerDuration.startTimer({ grpc_service: serviceName, grpc_method: methodName });
      const caller = callerFromMetadata(call.metadata, newRequestId);
      // Made on first use: a pino child with redaction is costly (docs/performance.md) and most calls
      // log nothing.
      let child: Logger | undefined;
      const callLog = () => (child ??= log.child({ request_id: caller.requestId, rpc: methodName }));
      const finish = (code: grpc.status) => {
        stopTimer();
        metrics.grpcServerHandled.inc({
          grpc_service: serviceName,
          grpc_method: methodName,
          grpc_code: grpc.status[code],
        });
      };
      if (!handler) {
        const err = new PlatformError('NOT_IMPLEMENTED', undefined, {
          detail: `${methodName} is part of the contract but not implemented in this release`,
        });
        finish(err.grpcStatus);
        callback(toServiceError(err, callLog()));
        return;
      }
      const context = {
        caller,
        deadline: deadlineDate(call.getDeadline()),
        get log() {
          return callLog();
        },
      };
      handler(call.request, context).then(
        (response) => {
          finish(grpc.status.OK);
          callback(null, response);
        },
        (err: unknown) => {
          const status = toServiceError(err, callLog());
          finish(status.code ?? grpc.status.INTERNAL);
          if (err instanceof PlatformError)
            callLog().info({ code: err.code, param: err.param }, `call refused: ${err.message}`);
          callback(status);
        },
      );
    };
  }
  return { implementation, implemented };
}

export interface GrpcServerHandle {
  server: grpc.Server;
  health: HealthImplementation;
  port: number;
  /** Marks NOT_SERVING, waits for in-flight calls up to `timeoutMs`, then forces. */
  shutdown(timeoutMs: number): Promise<void>;
}

export async function startGrpcServer(
  host: string,
  port: number,
  services: {
    fullName: string;
    definition: grpc.ServiceDefinition;
    implementation: grpc.UntypedServiceImplementation;
  }[],
): Promise<GrpcServerHandle> {
  const server = new grpc.Server({
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
  });
  const statusMap: Record<string, 'SERVING' | 'NOT_SERVING'> = { '': 'NOT_SERVING' };
  for (const s of services) {
    server.addService(s.definition, s.implementation);
    statusMap[s.fullName] = 'NOT_SERVING';
  }
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const setAll = (status: 'SERVING' | 'NOT_SERVING') => {
    for (const name of Object.keys(statusMap)) health.setStatus(name, status);
  };
  setAll('SERVING');
  return {
    server,
    health,
    port: boundPort,
    shutdown: (timeoutMs) =>
      new Promise<void>((resolve) => {
        setAll('NOT_SERVING');
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
