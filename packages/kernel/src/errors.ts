/**
 * The gRPC status codes the catalogue uses: the standard numeric codes (grpc/doc/statuscodes.md),
 * written here so the kernel needs no gRPC library.
 */
export const Grpc = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatusCode = (typeof Grpc)[keyof typeof Grpc];

/**
 * Error groups, shown to partners as `error.type` (like Stripe's error types). A partner's code can
 * branch on the group without knowing every code: retry `infrastructure` and `rate_limit`, fix the
 * request for `invalid_request`, re-read the resource for `state_conflict`.
 */
export type ErrorGroup =
  | 'authentication'
  | 'permission'
  | 'invalid_request'
  | 'not_found'
  | 'state_conflict'
  | 'rate_limit'
  | 'infrastructure';

export interface CatalogueEntry {
  group: ErrorGroup;
  /** What the gateway answers. */
  http: number;
  /** What services answer over gRPC: also decides what counts against circuit breakers. */
  grpc: GrpcStatusCode;
  /** Default partner-facing message (the spec's wording where the spec gives one). */
  message: string;
}

const entry = (group: ErrorGroup, http: number, grpc: GrpcStatusCode, message: string): CatalogueEntry => ({
  group,
  http,
  grpc,
  message,
});
const invalid = (message: string, http = 400) =>
  entry('invalid_request', http, http === 422 ? Grpc.FAILED_PRECONDITION : Grpc.INVALID_ARGUMENT, message);
const notFound = (message: string) => entry('not_found', 404, Grpc.NOT_FOUND, message);
const conflict = (message: string, grpc: GrpcStatusCode = Grpc.ABORTED) => entry('state_conflict', 409, grpc, message);

/**
 * The platform's one error catalogue. Every error a partner can see has a stable `code` here, and
 * the entry carries everything needed to answer it: HTTP status, gRPC status, group, message.
 * Services raise `PlatformError(code)`; the service runtime sends the code in a gRPC trailer; the
 * gateway answers with the entry's HTTP status, looked up by code (docs/errors.md is generated from
 * this table and a test keeps the two equal).
 */
export const ERROR_CATALOGUE = {
  // --- authentication (401) -------------------------------------------------------------------
  INVALID_API_KEY: entry('authentication', 401, Grpc.UNAUTHENTICATED, 'Invalid API key'),
  UNAUTHORIZED: entry('authentication', 401, Grpc.UNAUTHENTICATED, 'Unauthorized'),

  // --- permission (403) -----------------------------------------------------------------------
  PERMISSION_DENIED: entry('permission', 403, Grpc.PERMISSION_DENIED, 'Permission denied'),
  MARKETPLACE_OPERATOR_REQUIRED: entry(
    'permission',
    403,
    Grpc.PERMISSION_DENIED,
    'This endpoint is restricted to marketplace operators',
  ),
  ADMIN_ROLE_REQUIRED: entry(
    'permission',
    403,
    Grpc.PERMISSION_DENIED,
    'This endpoint is restricted to platform administrators',
  ),

  // --- invalid_request (400, 405, 413, 415, 422) ------------------------------------------------
  VALIDATION_FAILED: invalid('Invalid request'),
  INVALID_JSON: invalid('Request body is not valid JSON'),
  PAYLOAD_TOO_LARGE: entry('invalid_request', 413, Grpc.INVALID_ARGUMENT, 'Request body is too large'),
  UNSUPPORTED_MEDIA_TYPE: entry('invalid_request', 415, Grpc.INVALID_ARGUMENT, 'Content-Type must be application/json'),
  UNSUPPORTED_API_VERSION: invalid('Unsupported api_version'),
  INVALID_WEBHOOK_URL: invalid('webhook_url must be an absolute http(s) URL'),
  INVALID_CURSOR: invalid('Invalid cursor'),
  INVALID_ENVIRONMENT: invalid('X-Environment must be live or sandbox'),
  // spec 7.1, exact wording
  MISSING_REQUIRED_FIELDS: invalid('Missing required fields'),
  AMOUNT_MISMATCH: invalid('Amount mismatch'),
  CONVERTED_AMOUNT_MISMATCH: invalid('converted_total_amount does not match amount'),
  CONVERTED_CURRENCY_MISMATCH: invalid('converted_total_currency must match the charge currency'),
  CONVERTED_PAIR_INCOMPLETE: invalid(
    'Both converted_total_amount and converted_total_currency must be provided together',
  ),
  CONVERSION_FAILED: invalid('Unable to convert between these currencies'),
  UNSUPPORTED_CURRENCY: invalid('Currency is not supported'),
  SUB_MERCHANT_NOT_ACTIVE: invalid('sub_merchant_id must be an active sub-merchant of your marketplace'),
  AMOUNT_REQUIRED: invalid('amount is required', 422),
  TOTAL_REQUIRED: invalid('Missing total_amount / total_currency', 422),
  METADATA_INVALID: invalid('Metadata validation failed', 422),
  UNPROCESSABLE: invalid('Request cannot be processed', 422),
  IDEMPOTENCY_KEY_REUSED: invalid('Idempotency-Key was already used with a different request', 422),
  GATEWAY_NOT_CONFIGURED: invalid('Live payments are not enabled for this currency yet', 422),
  MARKETPLACE_NOT_SET_UP: invalid('Marketplace is not set up; call POST /marketplace/setup first', 422),
  SESSION_EXPIRED: invalid('This checkout session has expired', 422),
  SESSION_CLOSED: invalid('This checkout session can no longer be paid', 422),
  // one order ships once: a plan's later parts or a subscription's renewals would charge without one
  PHYSICAL_GOODS_NOT_RECURRING: invalid('Physical products cannot be sold in installments or by subscription', 422),
  // spec 7.4, exact wording
  PAYOUT_NOT_SET_UP: invalid('Payout has not been set up for this merchant'),
  PAYOUT_ACCOUNT_NOT_FOUND: invalid('No payout account found'),
  KYC_NOT_SUBMITTED: invalid('KYC has not been submitted for this merchant'),
  // refunds (docs/decisions.md, Refunds)
  CHARGE_NOT_REFUNDABLE: invalid('Only a succeeded charge can be refunded'),
  CHARGE_ALREADY_REFUNDED: invalid('This charge has already been refunded in full'),
  REFUND_EXCEEDS_CHARGE: invalid('Refund amount exceeds the amount left to refund on this charge'),
  // disputes (docs/decisions.md, Disputes)
  DISPUTE_AMOUNT_EXCEEDS_CHARGE: invalid('Dispute amount exceeds what is left of the charge (captured minus refunded)'),
  // spec 7.6, exact wording
  INVALID_MERCHANT_ID: invalid('Invalid merchant ID'),
  /** Not every service acknowledged within the call's wait; a retry of the same call finishes the job. */
  MERCHANT_DELETION_INCOMPLETE: invalid('Failed to delete merchant business data'),
  // wallets and staged payouts (spec 7.8 wording where given)
  INSUFFICIENT_BALANCE: invalid('Insufficient available balance for this payout'),
  KYC_NOT_APPROVED: invalid('KYC must be approved before requesting a payout'),
  PAYOUT_CURRENCY_MISMATCH: invalid('currency must be the payout account currency'),
  APPROVAL_FAILED: invalid('Approval failed'),
  // installment plans (issue 26)
  INSTALLMENTS_NOT_ALLOWED: invalid('This product cannot be paid in installments'),

  METHOD_NOT_ALLOWED: entry('invalid_request', 405, Grpc.UNIMPLEMENTED, 'Method not allowed'),

  // --- not_found (404) --------------------------------------------------------------------------
  ROUTE_NOT_FOUND: notFound('Route not found'),
  API_KEY_NOT_FOUND: notFound('API key not found'),
  EVENT_NOT_FOUND: notFound('Event not found'),
  MERCHANT_NOT_FOUND: notFound('Merchant not found'),
  CHARGE_NOT_FOUND: notFound('Charge not found'),
  SESSION_NOT_FOUND: notFound('Checkout session not found'),
  SUBSCRIPTION_NOT_FOUND: notFound('Subscription not found'),
  INSTALLMENT_PLAN_NOT_FOUND: notFound('Installment plan not found'),
  PAYMENT_METHOD_NOT_FOUND: notFound('Payment method not found'),
  PRODUCT_NOT_FOUND: notFound('Product not found'),
  RELATIONSHIP_NOT_FOUND: notFound('Active merchant relationship not found'),
  // spec 7.6: delete acts on a relationship in any status, hence no "Active"
  MERCHANT_RELATIONSHIP_NOT_FOUND: notFound('Merchant relationship not found'),
  INVITATION_NOT_FOUND: notFound('Invitation not found'),
  MERCHANT_PORTFOLIO_NOT_FOUND: notFound('Merchant portfolio not found'),
  KYC_SUBMISSION_NOT_FOUND: notFound('KYC submission not found'),
  PAYOUT_REQUEST_NOT_FOUND: notFound('Payout request not found'),
  DISPUTE_NOT_FOUND: notFound('Dispute not found'),
  ORDER_NOT_FOUND: notFound('Order not found'),
  ONBOARDING_LINK_NOT_FOUND: notFound('Onboarding link not found'),

  // --- state_conflict (409) -------------------------------------------------------------------
  CONFLICT: conflict('Conflicting concurrent update, retry the request'),
  ALREADY_EXISTS: conflict('Resource already exists', Grpc.ALREADY_EXISTS),
  API_KEY_REVOKED: conflict('API key has been revoked'),
  WEBHOOK_URL_NOT_SET: conflict('This API key has no webhook_url; set one with PUT /api-keys/{id}/webhook'),
  MERCHANT_ALREADY_LINKED: conflict('Merchant is already linked to a marketplace'),
  INVITATION_CLOSED: conflict('The invitation is no longer pending'),
  IDEMPOTENCY_IN_FLIGHT: conflict('A request with this Idempotency-Key is still being processed'),
  REFERENCE_REUSED: conflict('reference was already used for a charge with different parameters'),
  KYC_TRANSITION_NOT_ALLOWED: conflict('The KYC submission is not in a status that allows this'),
  PAYOUT_ALREADY_SET_UP: conflict('Payout is already set up for this merchant; use PATCH to update it'),
  MERCHANT_IS_OPERATOR: conflict('This merchant is a marketplace operator; it cannot be deleted as a sub-merchant'),
  PAYOUT_ALREADY_CLAIMED: conflict('Already claimed'),
  PAYOUT_REFERENCE_REUSED: conflict('reference was already used for a payout request with different parameters'),
  PAYOUT_NOT_SETTLEABLE: conflict('The withdrawal is not payout_pending'),
  WALLET_IN_DEBT: conflict('The wallet balance does not cover this payout (a dispute or refund took it below zero)'),
  REFUND_LIMIT_REACHED: conflict('This charge has reached the maximum number of refunds'),
  // disputes (docs/decisions.md, Disputes)
  CHARGE_DISPUTED: conflict('This charge has an open dispute; it cannot be refunded until the dispute is closed'),
  CHARGE_NOT_DISPUTABLE: conflict('Only a succeeded charge can be disputed'),
  CHARGE_ALREADY_DISPUTED: conflict('This charge already has a dispute'),
  DISPUTE_EVIDENCE_SUBMITTED: conflict('Evidence for this dispute has already been submitted'),
  DISPUTE_PAST_DUE: conflict('The evidence due date of this dispute has passed'),
  DISPUTE_CLOSED: conflict('This dispute is closed'),
  DISPUTE_NOT_UNDER_REVIEW: conflict('Only a dispute under review can be decided'),
  // products and stock (docs/decisions.md, Products and orders)
  PRODUCT_LIMIT_REACHED: conflict('This merchant has reached the maximum number of products for this mode'),
  PRODUCT_READ_ONLY: conflict('This product comes from the catalogue seed file and cannot be changed here'),
  PRODUCT_ARCHIVED: conflict('This product is archived'),
  STOCK_UNLIMITED: conflict('This stock is unlimited; set a stock level before adjusting it'),
  STOCK_INSUFFICIENT: conflict('Not enough stock for this change'),
  STOCK_HELD: conflict('Units of this stock are held by a checkout in progress; retry once it settles'),
  PRODUCT_UNAVAILABLE: conflict('This product is not for sale (inactive or archived)'),
  ORDER_STATUS_CONFLICT: conflict('The order is not in a status that allows this'),
  ORDER_REFUND_FAILED: conflict('The refund of this order was declined; the order stays paid'),
  // hardening 2, part B (docs/decisions.md, Hardening 2 (part B))
  MERCHANT_RECENTLY_DELETED: conflict(
    'This business was deleted from a marketplace in this mode moments ago; it can join again once that deletion is complete',
  ),
  WEBHOOK_ATTEMPT_LIMIT_REACHED: conflict('This event has been sent as many times as it may be; it cannot be resent'),
  PAYOUT_CHANGE_NEEDS_APPROVED_KYC: conflict('The payout account can only be changed while KYC is approved'),
  PAYOUT_CHANGE_NOT_PENDING: conflict('No payout account change is waiting for review'),
  PAYOUT_KYC_NOT_APPROVED: conflict('KYC is no longer approved for this merchant in this mode'),
  PAYOUT_DESTINATION_CHANGED: conflict('The payout account changed since this payout was requested'),

  // --- rate_limit (429) -----------------------------------------------------------------------
  RATE_LIMITED: entry('rate_limit', 429, Grpc.RESOURCE_EXHAUSTED, 'Too many requests'),

  // --- infrastructure (5xx): the only errors that count against circuit breakers ---------------
  INTERNAL: entry('infrastructure', 500, Grpc.INTERNAL, 'Internal error'),
  NOT_IMPLEMENTED: entry('infrastructure', 501, Grpc.UNIMPLEMENTED, 'This operation is not available yet'),
  SERVICE_UNAVAILABLE: entry(
    'infrastructure',
    503,
    Grpc.UNAVAILABLE,
    'Service temporarily unavailable, please retry shortly',
  ),
  UPSTREAM_TIMEOUT: entry('infrastructure', 504, Grpc.DEADLINE_EXCEEDED, 'The operation timed out, please retry'),

  // --- Hardening 2 (issue 27): bounded answers, per-merchant quotas -------------------------------
  DELIVERY_NOT_FOUND: notFound('Delivery not found'),
  ATTEMPT_NOT_FOUND: notFound('Delivery attempt not found'),
  API_KEY_LIMIT_REACHED: conflict('This merchant has the most API keys allowed in this mode; revoke one first'),
  WEBHOOK_URL_LIMIT_REACHED: conflict(
    'This merchant has the most webhook URLs allowed in this mode; clear one or revoke its key first',
  ),
  EVENT_STREAM_LIMIT_REACHED: entry('rate_limit', 429, Grpc.RESOURCE_EXHAUSTED, 'Too many open event streams'),
  RESEND_LIMIT_REACHED: entry(
    'rate_limit',
    429,
    Grpc.RESOURCE_EXHAUSTED,
    'This event was resent too often in the last hour; retry later',
  ),
  CLOCK_ADVANCE_TOO_FAR: invalid('to is more renewals ahead than one call may run; advance in smaller steps'),

  // --- Hardening 3 -------------------------------------------------------------------------------
  ONBOARDING_LIVE_NOT_AVAILABLE: invalid(
    'This onboarding page only plays the sandbox gateway; live onboarding is completed at the card gateway',
    422,
  ),
  // --- live card payments: processor events ----------------------------------------------------
  PROCESSOR_SIGNATURE_INVALID: invalid('The event signature is missing or invalid'),
} as const satisfies Record<string, CatalogueEntry>;

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
  /** When a retry can succeed (a quota's window): the gateway's Retry-After. */
  retryAfterSeconds?: number;
}

/** An error the partner is meant to see. Anything else becomes INTERNAL with no details. */
export class PlatformError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly detail?: string;
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message?: string, options: PlatformErrorOptions = {}) {
    super(message ?? ERROR_CATALOGUE[code].message, { cause: options.cause });
    this.name = 'PlatformError';
    this.code = code;
    this.param = options.param;
    this.detail = options.detail;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get grpcStatus(): GrpcStatusCode {
    return ERROR_CATALOGUE[this.code].grpc;
  }

  get httpStatus(): number {
    return ERROR_CATALOGUE[this.code].http;
  }

  get group(): ErrorGroup {
    return ERROR_CATALOGUE[this.code].group;
  }
}

/** Trailer keys carrying the catalogue code across gRPC. */
export const ERROR_TRAILERS = {
  code: 'ppay-error-code',
  param: 'ppay-error-param',
  detail: 'ppay-error-detail',
  retryAfter: 'ppay-error-retry-after',
} as const;
