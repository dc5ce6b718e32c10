import { PlatformError, requireMerchant, requireMode, type CallerInfo } from '@ppay/kernel';
import type { UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';

/** Each subdomain answers its share of the MarketplaceService RPCs; main.ts merges them. */
export type MarketplaceHandlers = UnaryHandlers<types.marketplace.MarketplaceServiceHandlers>;

/**
 * Marketplace data is separated by mode: the caller's key mode (metadata) scopes every operation, so
 * a sandbox key never reads or changes what live payments use.
 */
export function merchantInMode(caller: CallerInfo) {
  const who = requireMerchant(caller);
  return { merchantId: who.merchantId, mode: requireMode(caller) };
}

export function positive(value: number | undefined, param: string): number {
  if (!value || !Number.isSafeInteger(value) || value < 1) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be a positive integer`, { param });
  }
  return value;
}

export function pageOf(req: { page: { page: number; limit: number } | null }) {
  const page = req.page?.page || 1;
  const limit = req.page?.limit || 20;
  if (page < 1 || limit < 1 || limit > 100) {
    throw new PlatformError('VALIDATION_FAILED', 'page must be ≥ 1 and limit 1 to 100', { param: 'limit' });
  }
  return { page, limit };
}

/** The list responses' `pagination`. */
export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, pages: Math.ceil(total / limit) };
}
