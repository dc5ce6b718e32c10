import { status } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, Grpc, isErrorCode, PlatformError, type ErrorGroup } from './errors';

/** What each group may answer, over HTTP and gRPC: the catalogue cannot drift out of its own rules. */
const GROUP_RULES: Record<ErrorGroup, { http: number[]; grpc: status[] }> = {
  authentication: { http: [401], grpc: [status.UNAUTHENTICATED] },
  permission: { http: [403], grpc: [status.PERMISSION_DENIED] },
  invalid_request: {
    http: [400, 405, 413, 415, 422],
    grpc: [status.INVALID_ARGUMENT, status.FAILED_PRECONDITION, status.UNIMPLEMENTED],
  },
  not_found: { http: [404], grpc: [status.NOT_FOUND] },
  state_conflict: { http: [409], grpc: [status.ABORTED, status.ALREADY_EXISTS] },
  rate_limit: { http: [429], grpc: [status.RESOURCE_EXHAUSTED] },
  infrastructure: {
    http: [500, 501, 503, 504],
    grpc: [status.INTERNAL, status.UNIMPLEMENTED, status.UNAVAILABLE, status.DEADLINE_EXCEEDED],
  },
};

describe("the kernel's gRPC status codes", () => {
  it('are the numbers grpc-js uses', () => {
    for (const [name, code] of Object.entries(Grpc))
      expect([name, code]).toEqual([name, status[name as keyof typeof status]]);
  });
});

describe('error catalogue', () => {
  it('gives every code a group, an HTTP status and a gRPC status that fit the group, and a message', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(entry.message.length).toBeGreaterThan(3);
      const rules = GROUP_RULES[entry.group];
      expect([code, rules.http.includes(entry.http), rules.grpc.includes(entry.grpc)]).toEqual([code, true, true]);
    }
  });

  it('uses FAILED_PRECONDITION only for 422s, so the 4xx a service means is never ambiguous', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      if (entry.grpc === status.FAILED_PRECONDITION) expect([code, entry.http]).toEqual([code, 422]);
    }
    expect(ERROR_CATALOGUE.CONFLICT.grpc).toBe(status.ABORTED);
    expect(ERROR_CATALOGUE.NOT_IMPLEMENTED.grpc).toBe(status.UNIMPLEMENTED);
  });

  it('keeps the spec wording for the messages it defines', () => {
    expect(ERROR_CATALOGUE.INVALID_API_KEY.message).toBe('Invalid API key');
    expect(ERROR_CATALOGUE.UNAUTHORIZED.message).toBe('Unauthorized');
    expect(ERROR_CATALOGUE.MARKETPLACE_OPERATOR_REQUIRED.message).toBe(
      'This endpoint is restricted to marketplace operators',
    );
    expect(ERROR_CATALOGUE.PERMISSION_DENIED.message).toBe('Permission denied');
    expect(ERROR_CATALOGUE.AMOUNT_REQUIRED.message).toBe('amount is required');
  });

  it('PlatformError carries code, statuses, group, default or custom message, param and detail', () => {
    const e = new PlatformError('VALIDATION_FAILED', undefined, { param: 'amount', detail: 'x' });
    expect(e.message).toBe('Invalid request');
    expect([e.grpcStatus, e.httpStatus, e.group]).toEqual([status.INVALID_ARGUMENT, 400, 'invalid_request']);
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', param: 'amount', detail: 'x' });
    expect(new PlatformError('UNPROCESSABLE', 'Metadata validation failed').message).toBe('Metadata validation failed');
    expect(isErrorCode('INVALID_API_KEY')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
  });
});
