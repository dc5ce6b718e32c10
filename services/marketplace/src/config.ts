import { Type } from '@sinclair/typebox';

/** marketplace-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const marketplaceConfig = Type.Object({
  MERCHANT_CACHE_TTL_MS: Type.Integer({ default: 30_000, minimum: 0 }),
  MERCHANT_CACHE_MAX_ENTRIES: Type.Integer({ default: 10_000, minimum: 1 }),
});
