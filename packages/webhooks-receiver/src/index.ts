export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS, type VerifyWebhookOptions } from './verify';
export { signWebhook, type WebhookSignatureHeaders } from './sign';
export { WebhookVerificationError, type WebhookVerificationErrorCode } from './errors';
export type { WebhookEvent } from './event';
export { WEBHOOK_HEADERS, type HeadersLike, type HeaderRecord, type WebhookHeaders } from './headers';
export type { RawBody } from './signature';
export { registerFastifyRawBody, type FastifyRawBodyTarget, type WithRawBody } from './raw-body/fastify';
export {
  expressRawBody,
  type ExpressRawBodyOptions,
  type RawBodyIncomingMessage,
  type RawBodyMiddleware,
} from './raw-body/express';
