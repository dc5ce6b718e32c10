import { Type } from '@sinclair/typebox';

/** marketplace-specific settings (none yet beyond the kernel's baseServiceConfig). */
export const marketplaceConfig = Type.Object({});
