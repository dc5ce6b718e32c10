import { Type } from '@sinclair/typebox';

/** fx-pricing-specific settings (none yet beyond the kernel's baseServiceConfig). */
export const serviceConfig = Type.Object({});
