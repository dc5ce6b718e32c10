import { status } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, PlatformError, RemoteCallError } from '@ppay/kernel';
import { HTTP_STATUS_BY_GRPC, toHttpError } from './errors';

const retryAfter = () => 5;

describe('gRPC status → HTTP (the gateway half of the error mapping)', () => {
  it('maps every gRPC status', () => {
    for (const code of Object.values(status).filter((v) => typeof v === 'number')) {
      expect(HTTP_STATUS_BY_GRPC[code as status]).toBeGreaterThanOrEqual(200);
    }
  });

  it('gives each catalogue code the HTTP status partners expect', () => {
    const expected: Record<string, number> = {
      VALIDATION_FAILED: 400,
      INVALID_API_KEY: 401,
      UNAUTHORIZED: 401,
      MARKETPLACE_OPERATOR_REQUIRED: 403,
      PERMISSION_DENIED: 403,
      API_KEY_NOT_FOUND: 404,
      ROUTE_NOT_FOUND: 404,
      CONFLICT: 409,
      ALREADY_EXISTS: 409,
      API_KEY_REVOKED: 409,
      UNPROCESSABLE: 422,
      RATE_LIMITED: 429,
      INTERNAL: 500,
      NOT_IMPLEMENTED: 501,
      SERVICE_UNAVAILABLE: 503,
      UPSTREAM_TIMEOUT: 504,
    };
    for (const [code, http] of Object.entries(expected)) {
      const e = new PlatformError(code as keyof typeof ERROR_CATALOGUE);
      expect([code, toHttpError(e, 'req_1', retryAfter).statusCode]).toEqual([code, http]);
    }
  });

  it('relays a service error with its code, message and param', () => {
    const remote = new RemoteCallError(
      'payments',
      'CreateCharge',
      status.INVALID_ARGUMENT,
      'Amount mismatch',
      'VALIDATION_FAILED',
      'amount',
    );
    expect(toHttpError(remote, 'req_9', retryAfter)).toEqual({
      statusCode: 400,
      body: {
        success: false,
        message: 'Amount mismatch',
        error: { code: 'VALIDATION_FAILED', message: 'Amount mismatch', param: 'amount', request_id: 'req_9' },
      },
      retryAfterSeconds: undefined,
    });
  });

  it('hides transport text and unknown errors behind catalogue messages', () => {
    const down = new RemoteCallError(
      'kyc',
      'X',
      status.UNAVAILABLE,
      'No connection established. Last error: ECONNREFUSED',
    );
    const http = toHttpError(down, 'r', retryAfter);
    expect(http).toMatchObject({ statusCode: 503, retryAfterSeconds: 5 });
    expect(http.body.error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: ERROR_CATALOGUE.SERVICE_UNAVAILABLE.message,
    });
    const bug = toHttpError(new TypeError('cannot read x of undefined'), 'r', retryAfter);
    expect(bug.statusCode).toBe(500);
    expect(JSON.stringify(bug.body)).not.toContain('undefined');
  });
});
