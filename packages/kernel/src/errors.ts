import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The platform's one error catalogue. Every error a partner can see has a stable `code` here.
 *
 * Mapping happens in exactly two places:
 *  1. catalogue → gRPC status: `grpcStatus` below, applied by the service runtime (kernel/grpc/server);
 *  2. gRPC status → HTTP: the gateway's status table (gateway/src/http/errors.ts).
 * FAILED_PRECONDITION is reserved for "well-formed but unprocessable" (HTTP 422) and ABORTED for
 * conflicts (HTTP 409), so each spec status has exactly one gRPC status behind it.
 */
export const ERROR_CATALOGUE = {
  // 400
  VALIDATION_FAILED: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Invalid request' },
  INVALID_JSON: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Request body is not valid JSON' },
  UNSUPPORTED_API_VERSION: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Unsupported api_version' },
  INVALID_WEBHOOK_URL: {
    grpcStatus: GrpcStatus.INVALID_ARGUMENT,
    message: 'webhook_url must be an absolute http(s) URL',
  },
  INVALID_ENVIRONMENT: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'X-Environment must be live or sandbox' },
  // 400 — charges (spec 7.1, exact wording)
  MISSING_REQUIRED_FIELDS: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Missing required fields' },
  AMOUNT_MISMATCH: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Amount mismatch' },
  CONVERTED_AMOUNT_MISMATCH: {
    grpcStatus: GrpcStatus.INVALID_ARGUMENT,
    message: 'converted_total_amount does not match amount',
  },
  CONVERTED_CURRENCY_MISMATCH: {
    grpcStatus: GrpcStatus.INVALID_ARGUMENT,
    message: 'converted_total_currency must match the charge currency',
  },
  CONVERTED_PAIR_INCOMPLETE: {
    grpcStatus: GrpcStatus.INVALID_ARGUMENT,
    message: 'Both converted_total_amount and converted_total_currency must be provided together',
  },
  CONVERSION_FAILED: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Unable to convert between these currencies' },
  UNSUPPORTED_CURRENCY: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Currency is not supported' },
  SUB_MERCHANT_NOT_ACTIVE: {
    grpcStatus: GrpcStatus.INVALID_ARGUMENT,
    message: 'sub_merchant_id must be an active sub-merchant of your marketplace',
  },
  // 401
  INVALID_API_KEY: { grpcStatus: GrpcStatus.UNAUTHENTICATED, message: 'Invalid API key' },
  UNAUTHORIZED: { grpcStatus: GrpcStatus.UNAUTHENTICATED, message: 'Unauthorized' },
  // 403
  PERMISSION_DENIED: { grpcStatus: GrpcStatus.PERMISSION_DENIED, message: 'Permission denied' },
  MARKETPLACE_OPERATOR_REQUIRED: {
    grpcStatus: GrpcStatus.PERMISSION_DENIED,
    message: 'This endpoint is restricted to marketplace operators',
  },
  // 404
  ROUTE_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'Route not found' },
  API_KEY_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'API key not found' },
  MERCHANT_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'Merchant not found' },
  CHARGE_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'Charge not found' },
  SESSION_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'Checkout session not found' },
  PRODUCT_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'Product not found' },
  RELATIONSHIP_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'Active merchant relationship not found' },
  INVITATION_NOT_FOUND: { grpcStatus: GrpcStatus.NOT_FOUND, message: 'Invitation not found' },
  // 409
  API_KEY_REVOKED: { grpcStatus: GrpcStatus.ABORTED, message: 'API key has been revoked' },
  ALREADY_EXISTS: { grpcStatus: GrpcStatus.ALREADY_EXISTS, message: 'Resource already exists' },
  CONFLICT: { grpcStatus: GrpcStatus.ABORTED, message: 'Conflicting concurrent update, retry the request' },
  MERCHANT_ALREADY_LINKED: {
    grpcStatus: GrpcStatus.ABORTED,
    message: 'Merchant is already linked to a marketplace',
  },
  IDEMPOTENCY_IN_FLIGHT: {
    grpcStatus: GrpcStatus.ABORTED,
    message: 'A request with this Idempotency-Key is still being processed',
  },
  // 422
  UNPROCESSABLE: { grpcStatus: GrpcStatus.FAILED_PRECONDITION, message: 'Request cannot be processed' },
  MARKETPLACE_NOT_SET_UP: {
    grpcStatus: GrpcStatus.FAILED_PRECONDITION,
    message: 'Marketplace is not set up; call POST /marketplace/setup first',
  },
  SESSION_EXPIRED: { grpcStatus: GrpcStatus.FAILED_PRECONDITION, message: 'This checkout session has expired' },
  SESSION_CLOSED: {
    grpcStatus: GrpcStatus.FAILED_PRECONDITION,
    message: 'This checkout session can no longer be paid',
  },
  AMOUNT_REQUIRED: { grpcStatus: GrpcStatus.FAILED_PRECONDITION, message: 'amount is required' },
  TOTAL_REQUIRED: { grpcStatus: GrpcStatus.FAILED_PRECONDITION, message: 'Missing total_amount / total_currency' },
  METADATA_INVALID: { grpcStatus: GrpcStatus.FAILED_PRECONDITION, message: 'Metadata validation failed' },
  IDEMPOTENCY_KEY_REUSED: {
    grpcStatus: GrpcStatus.FAILED_PRECONDITION,
    message: 'Idempotency-Key was already used with a different request',
  },
  GATEWAY_NOT_CONFIGURED: {
    grpcStatus: GrpcStatus.FAILED_PRECONDITION,
    message: 'Live payments are not enabled for this currency yet',
  },
  // 413 / 415 equivalents are reported as 400 by the gateway with these codes
  PAYLOAD_TOO_LARGE: { grpcStatus: GrpcStatus.INVALID_ARGUMENT, message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: {
    grpcStatus: GrpcStatus.INVALID_ARGUMENT,
    message: 'Content-Type must be application/json',
  },
  // 429
  RATE_LIMITED: { grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED, message: 'Too many requests' },
  // 5xx
  NOT_IMPLEMENTED: { grpcStatus: GrpcStatus.UNIMPLEMENTED, message: 'This operation is not available yet' },
  SERVICE_UNAVAILABLE: {
    grpcStatus: GrpcStatus.UNAVAILABLE,
    message: 'Service temporarily unavailable, please retry shortly',
  },
  UPSTREAM_TIMEOUT: { grpcStatus: GrpcStatus.DEADLINE_EXCEEDED, message: 'The operation timed out, please retry' },
  INTERNAL: { grpcStatus: GrpcStatus.INTERNAL, message: 'Internal error' },
} as const satisfies Record<string, { grpcStatus: GrpcStatus; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}

export interface PlatformErrorOptions {
  /** Request field the error is about, in the partner's naming (e.g. `customer.email`). */
  param?: string;
  /** Extra explanation for the partner, e.g. which header was missing. */
  detail?: string;
  cause?: unknown;
}

/** An error the partner is meant to see. Anything else becomes INTERNAL with no details. */
export class PlatformError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly detail?: string;

  constructor(code: ErrorCode, message?: string, options: PlatformErrorOptions = {}) {
    super(message ?? ERROR_CATALOGUE[code].message, { cause: options.cause });
    this.name = 'PlatformError';
    this.code = code;
    this.param = options.param;
    this.detail = options.detail;
  }

  get grpcStatus(): GrpcStatus {
    return ERROR_CATALOGUE[this.code].grpcStatus;
  }
}

/** Trailer keys carrying the catalogue code across gRPC. */
export const ERROR_TRAILERS = {
  code: 'ppay-error-code',
  param: 'ppay-error-param',
  detail: 'ppay-error-detail',
} as const;
