import { PlatformError, type ErrorCode, type Mode } from '@ppay/kernel';
import type { SplitResolver, SplitTerms } from '../ports';

const INFRASTRUCTURE_CODES = new Set<ErrorCode>(['INTERNAL', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT']);

/**
 * The terms of an operator's sale for its sub-merchant (a one-time charge or a checkout session with
 * `sub_merchant_id`): 400 SUB_MERCHANT_NOT_ACTIVE unless the sub-merchant is the operator's and active in
 * this mode. An outage of marketplace is ours to report (5xx), not the partner's mistake.
 */
export async function activeSubMerchantSplit(
  splits: SplitResolver,
  operatorId: number,
  subMerchantId: number,
  mode: Mode,
  deadline?: Date,
): Promise<SplitTerms> {
  const terms = await splits.resolve(operatorId, subMerchantId, mode, deadline).catch((err: unknown) => {
    if (!(err instanceof PlatformError) || INFRASTRUCTURE_CODES.has(err.code)) throw err;
    throw new PlatformError('SUB_MERCHANT_NOT_ACTIVE', undefined, { param: 'sub_merchant_id', cause: err });
  });
  if (!terms.active) throw new PlatformError('SUB_MERCHANT_NOT_ACTIVE', undefined, { param: 'sub_merchant_id' });
  return terms;
}
