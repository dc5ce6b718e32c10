import type { FastifyRequest } from 'fastify';
import { callerToMetadata } from '@ppay/runtime';

/** gRPC metadata for the authenticated caller of this request (merchant, mode, key, request id). */
export const callerMetadata = (req: FastifyRequest) => callerToMetadata(req.caller);
