export type WebhookVerificationErrorCode =
  | 'missing_signature'
  | 'malformed_signature'
  | 'invalid_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'malformed_payload'
  | 'event_id_mismatch';

/**
 * Every reason a delivery is refused. Receivers usually answer 400 for all of them (the platform
 * retries, which is harmless) and log `code`, which is stable; `message` is for humans.
 */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}
