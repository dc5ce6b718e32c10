import { status } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, isErrorCode, PlatformError } from './errors';

describe('error catalogue', () => {
  it('gives every code a gRPC status and a partner-facing message', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(entry.message.length).toBeGreaterThan(3);
      expect(Object.values(status)).toContain(entry.grpcStatus);
    }
  });

  it('keeps the spec wording for the messages it defines', () => {
    expect(ERROR_CATALOGUE.INVALID_API_KEY.message).toBe('Invalid API key');
    expect(ERROR_CATALOGUE.UNAUTHORIZED.message).toBe('Unauthorized');
    expect(ERROR_CATALOGUE.MARKETPLACE_OPERATOR_REQUIRED.message).toBe(
      'This endpoint is restricted to marketplace operators',
    );
    expect(ERROR_CATALOGUE.PERMISSION_DENIED.message).toBe('Permission denied');
  });

  it('uses FAILED_PRECONDITION only for 422-style and ABORTED/ALREADY_EXISTS only for conflicts', () => {
    expect(ERROR_CATALOGUE.UNPROCESSABLE.grpcStatus).toBe(status.FAILED_PRECONDITION);
    expect(ERROR_CATALOGUE.CONFLICT.grpcStatus).toBe(status.ABORTED);
    expect(ERROR_CATALOGUE.NOT_IMPLEMENTED.grpcStatus).toBe(status.UNIMPLEMENTED);
  });

  it('PlatformError carries code, default or custom message, param and detail', () => {
    const e = new PlatformError('VALIDATION_FAILED', undefined, { param: 'amount', detail: 'x' });
    expect(e.message).toBe('Invalid request');
    expect(e.grpcStatus).toBe(status.INVALID_ARGUMENT);
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', param: 'amount', detail: 'x' });
    expect(new PlatformError('UNPROCESSABLE', 'Metadata validation failed').message).toBe('Metadata validation failed');
    expect(isErrorCode('INVALID_API_KEY')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
  });
});
