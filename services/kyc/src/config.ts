import { Type } from '@sinclair/typebox';

/** kyc-specific settings (none yet beyond the kernel's baseServiceConfig). */
export const serviceConfig = Type.Object({});
