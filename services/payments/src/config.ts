import { Type } from '@sinclair/typebox';

/** payments-specific settings (none yet beyond the kernel's baseServiceConfig). */
export const serviceConfig = Type.Object({});
