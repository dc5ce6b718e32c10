import type { FastifyRequest } from 'fastify';
import { PlatformError, type ErrorCode } from '@ppay/kernel';
import { RemoteCallError } from '@ppay/runtime';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';

/**
 * What an operator route (spec 4.9: "All require an API key belonging to a marketplace operator") must
 * establish before anything about its request is judged: the caller is an operator, and, for a route
 * acting on one sub-merchant, that sub-merchant is the caller's.
 */
export interface OperatorAccess {
  /** The path parameter naming the sub-merchant, when the route acts on one. */
  subMerchantParam?: string;
  /** The route acts only on an active relationship (KYC, payout); otherwise on one in any status. */
  activeOnly?: boolean;
  /** The route's 404 for no such relationship (spec 7.6 words it without "Active"). */
  notFound?: Extract<ErrorCode, 'RELATIONSHIP_NOT_FOUND' | 'MERCHANT_RELATIONSHIP_NOT_FOUND'>;
  /** Spec 7.4: a sub-merchant whose business record is gone is 404 "Merchant portfolio not found". */
  portfolio?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An operator route: its 403 and 404 come before any 400 about its request (operatorDenial). */
    operatorAccess?: OperatorAccess;
  }
}

const SUB_MERCHANT_ID = /^[1-9]\d{0,15}$/;
const PASSED_ON: ReadonlySet<string> = new Set(['MARKETPLACE_OPERATOR_REQUIRED', 'RELATIONSHIP_NOT_FOUND']);

/**
 * The 403 or 404 a request to an operator route gets before its 400: asked only when the request failed
 * validation (params, query or body). A request that passes validation reaches the service, which
 * checks the operator and the relationship before anything else in the request, so both paths answer
 * in the order authentication → authorization and existence → validation without an extra call on
 * every valid request. Undefined when the caller may act (the validation error stands); an outage of
 * marketplace is thrown as it is (the check could not be made, which is not the client's mistake).
 */
export async function operatorDenial(deps: GatewayDeps, req: FastifyRequest): Promise<PlatformError | undefined> {
  const access = req.routeOptions.config?.operatorAccess;
  const operatorId = req.caller?.merchantId;
  if (!access || operatorId === undefined) return undefined;
  const raw = access.subMerchantParam && (req.params as Record<string, unknown> | undefined)?.[access.subMerchantParam];
  // A number once the params passed validation (coerced), the raw text when they are what failed.
  const subMerchantId = SUB_MERCHANT_ID.test(String(raw)) ? Number(raw) : undefined;
  const { marketplace } = deps.clients;
  try {
    if (subMerchantId === undefined) {
      // No sub-merchant to look up (none on this route, or its id is itself the 400): the operator only.
      const account = await marketplace.call('GetAccount', {}, callerMetadata(req));
      return account.is_marketplace_operator ? undefined : new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    }
    const profile = await marketplace.call(
      'DescribeSubMerchant',
      { operator_merchant_id: operatorId, sub_merchant_id: subMerchantId },
      callerMetadata(req),
    );
    if (access.activeOnly && !profile.active) return new PlatformError(access.notFound ?? 'RELATIONSHIP_NOT_FOUND');
    if (access.portfolio && !profile.merchant) return new PlatformError('MERCHANT_PORTFOLIO_NOT_FOUND');
    return undefined;
  } catch (err) {
    const code = err instanceof RemoteCallError ? err.errorCode : undefined;
    if (code === 'MERCHANT_NOT_FOUND') return new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    if (code && PASSED_ON.has(code)) {
      return new PlatformError(code === 'RELATIONSHIP_NOT_FOUND' ? (access.notFound ?? code) : code);
    }
    throw err;
  }
}
