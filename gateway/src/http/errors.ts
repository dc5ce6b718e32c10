import { ERROR_CATALOGUE, PlatformError, type ErrorCode, type ErrorGroup } from '@ppay/kernel';
import { RemoteCallError } from '@ppay/runtime';

/**
 * Error → HTTP answer: the gateway half of the error mapping. Services send the catalogue code in a
 * gRPC trailer; the HTTP status comes from the catalogue entry of that code, so every status the
 * catalogue names (405, 413, 415, 422, 429…) reaches the partner as it is. A failure that carries
 * no code (the transport failed before any service answered) is classified by RemoteCallError.code.
 */
export interface ErrorBody {
  success: false;
  message: string;
  error: {
    code: ErrorCode;
    type: ErrorGroup;
    message: string;
    param?: string;
    detail?: string;
    request_id: string;
  };
}

export interface HttpError {
  statusCode: number;
  body: ErrorBody;
  retryAfterSeconds?: number;
}

export function toHttpError(err: unknown, requestId: string, retryAfter: (target: string) => number): HttpError {
  let code: ErrorCode;
  let message: string;
  let param: string | undefined;
  let detail: string | undefined;
  if (err instanceof PlatformError) {
    ({ code, message, param, detail } = err);
  } else if (err instanceof RemoteCallError) {
    code = err.code;
    // Transport-level text ("No connection established") is not for partners.
    message = err.errorCode ? err.message : ERROR_CATALOGUE[code].message;
    param = err.param;
    detail = err.errorCode ? err.detail : undefined;
  } else {
    code = 'INTERNAL';
    message = ERROR_CATALOGUE.INTERNAL.message;
  }
  const entry = ERROR_CATALOGUE[code];
  const body: ErrorBody = {
    success: false,
    message,
    error: {
      code,
      type: entry.group,
      message,
      request_id: requestId,
      ...(param ? { param } : {}),
      ...(detail ? { detail } : {}),
    },
  };
  const target = err instanceof RemoteCallError ? err.target : '';
  const stated = err instanceof PlatformError || err instanceof RemoteCallError ? err.retryAfterSeconds : undefined;
  return {
    statusCode: entry.http,
    body,
    retryAfterSeconds: stated ?? (entry.http === 503 ? retryAfter(target) : entry.http === 429 ? 1 : undefined),
  };
}
