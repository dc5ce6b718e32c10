import { status as GrpcStatus } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, PlatformError, RemoteCallError, type ErrorCode } from '@ppay/kernel';

/**
 * gRPC status → HTTP status: the gateway-side half of the error mapping (the other half is the
 * catalogue's gRPC status in the kernel). Errors raised in the gateway itself take the same path.
 */
export const HTTP_STATUS_BY_GRPC: Record<GrpcStatus, number> = {
  [GrpcStatus.OK]: 200,
  [GrpcStatus.CANCELLED]: 499,
  [GrpcStatus.UNKNOWN]: 500,
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.FAILED_PRECONDITION]: 422,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.OUT_OF_RANGE]: 400,
  [GrpcStatus.UNIMPLEMENTED]: 501,
  [GrpcStatus.INTERNAL]: 500,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DATA_LOSS]: 500,
  [GrpcStatus.UNAUTHENTICATED]: 401,
};

/** When a service answered without a catalogue code (e.g. the transport failed), pick one by status. */
const CODE_BY_GRPC: Partial<Record<GrpcStatus, ErrorCode>> = {
  [GrpcStatus.UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'UPSTREAM_TIMEOUT',
  [GrpcStatus.UNIMPLEMENTED]: 'NOT_IMPLEMENTED',
  [GrpcStatus.CANCELLED]: 'SERVICE_UNAVAILABLE',
};

export interface ErrorBody {
  success: false;
  message: string;
  error: { code: ErrorCode; message: string; param?: string; detail?: string; request_id: string };
}

export interface HttpError {
  statusCode: number;
  body: ErrorBody;
  retryAfterSeconds?: number;
}

export function toHttpError(err: unknown, requestId: string, retryAfter: (target: string) => number): HttpError {
  let grpcStatus: GrpcStatus;
  let code: ErrorCode;
  let message: string;
  let param: string | undefined;
  let detail: string | undefined;
  if (err instanceof PlatformError) {
    ({ grpcStatus, code, message, param, detail } = err);
  } else if (err instanceof RemoteCallError) {
    grpcStatus = err.grpcCode;
    code = err.errorCode ?? CODE_BY_GRPC[err.grpcCode] ?? 'INTERNAL';
    // Transport-level text ("No connection established") is not for partners.
    message = err.errorCode ? err.message : ERROR_CATALOGUE[code].message;
    param = err.param;
    detail = err.errorCode ? err.detail : undefined;
  } else {
    grpcStatus = GrpcStatus.INTERNAL;
    code = 'INTERNAL';
    message = ERROR_CATALOGUE.INTERNAL.message;
  }
  const statusCode = HTTP_STATUS_BY_GRPC[grpcStatus] ?? 500;
  const body: ErrorBody = {
    success: false,
    message,
    error: { code, message, request_id: requestId, ...(param ? { param } : {}), ...(detail ? { detail } : {}) },
  };
  const target = err instanceof RemoteCallError ? err.target : '';
  return {
    statusCode,
    body,
    retryAfterSeconds: statusCode === 503 ? retryAfter(target) : statusCode === 429 ? 1 : undefined,
  };
}
