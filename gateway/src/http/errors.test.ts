import { status } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, PlatformError, type ErrorCode } from '@ppay/kernel';
import { RemoteCallError } from '@ppay/runtime';
import { toHttpError } from './errors';

const retryAfter = () => 5;

describe('error → HTTP (the gateway half of the error mapping)', () => {
  it('answers every catalogue code with its own HTTP status and group, raised here or relayed from a service', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE) as [ErrorCode, (typeof ERROR_CATALOGUE)[ErrorCode]][]) {
      const local = toHttpError(new PlatformError(code), 'r', retryAfter);
      const remote = toHttpError(new RemoteCallError('svc', 'M', entry.grpc, entry.message, code), 'r', retryAfter);
      for (const http of [local, remote]) {
        expect([code, http.statusCode, http.body.error.type]).toEqual([code, entry.http, entry.group]);
      }
    }
  });

  it('keeps 413, 415, 422 and 429 apart instead of collapsing them into 400', () => {
    const statusOf = (code: ErrorCode) => toHttpError(new PlatformError(code), 'r', retryAfter).statusCode;
    expect(statusOf('PAYLOAD_TOO_LARGE')).toBe(413);
    expect(statusOf('UNSUPPORTED_MEDIA_TYPE')).toBe(415);
    expect(statusOf('AMOUNT_REQUIRED')).toBe(422);
    expect(statusOf('RATE_LIMITED')).toBe(429);
    expect(statusOf('METHOD_NOT_ALLOWED')).toBe(405);
  });

  it('relays a service error with its code, message and param', () => {
    const remote = new RemoteCallError(
      'payments',
      'CreateCharge',
      status.INVALID_ARGUMENT,
      'Amount mismatch',
      'AMOUNT_MISMATCH',
      'amount',
    );
    expect(toHttpError(remote, 'req_9', retryAfter)).toEqual({
      statusCode: 400,
      body: {
        success: false,
        message: 'Amount mismatch',
        error: {
          code: 'AMOUNT_MISMATCH',
          type: 'invalid_request',
          message: 'Amount mismatch',
          param: 'amount',
          request_id: 'req_9',
        },
      },
      retryAfterSeconds: undefined,
    });
  });

  it('passes a quota’s own Retry-After on, raised here or relayed from a service (H2-3)', () => {
    const local = new PlatformError('EVENT_STREAM_LIMIT_REACHED', undefined, { retryAfterSeconds: 30 });
    const remote = new RemoteCallError(
      'webhooks',
      'ResendEvent',
      status.RESOURCE_EXHAUSTED,
      'This event was resent too often in the last hour; retry later',
      'RESEND_LIMIT_REACHED',
      undefined,
      undefined,
      false,
      1_800,
    );
    expect([toHttpError(local, 'r', retryAfter).retryAfterSeconds, toHttpError(remote, 'r', retryAfter)]).toEqual([
      30,
      expect.objectContaining({ statusCode: 429, retryAfterSeconds: 1_800 }),
    ]);
    expect(toHttpError(new PlatformError('RATE_LIMITED'), 'r', retryAfter).retryAfterSeconds).toBe(1);
  });

  it('classifies transport failures without a code and hides their text; unknown errors are 500', () => {
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
      type: 'infrastructure',
      message: ERROR_CATALOGUE.SERVICE_UNAVAILABLE.message,
    });
    expect(toHttpError(new RemoteCallError('p', 'X', status.DEADLINE_EXCEEDED, 'x'), 'r', retryAfter).statusCode).toBe(
      504,
    );
    expect(toHttpError(new RemoteCallError('p', 'X', status.UNIMPLEMENTED, 'x'), 'r', retryAfter).statusCode).toBe(501);
    const bug = toHttpError(new TypeError('cannot read x of undefined'), 'r', retryAfter);
    expect(bug.statusCode).toBe(500);
    expect(JSON.stringify(bug.body)).not.toContain('undefined');
  });
});
