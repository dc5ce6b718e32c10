import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { callerToMetadata } from '@ppay/kernel';
import { COMMON_ERRORS, successOf } from '../../http/schemas';

/** Pieces every partner route file uses. */
export const security = [{ apiKey: [] }];
export const AnyData = Type.Object({}, { additionalProperties: true });
export const MerchantIdParams = Type.Object({ merchantId: Type.Integer({ minimum: 1 }) });

/** gRPC metadata for the authenticated caller of this request. */
export const md = (req: FastifyRequest) => callerToMetadata(req.caller);

/** Route options for operations whose response is passed through from the service as `data`. */
export function generic(tags: string[], summary: string, extra: Record<string, unknown> = {}) {
  return { schema: { tags, summary, security, response: { 200: successOf(AnyData), ...COMMON_ERRORS }, ...extra } };
}
