import { Type } from '@sinclair/typebox';

/** subscriptions-specific settings (none yet beyond the kernel's baseServiceConfig). */
export const serviceConfig = Type.Object({});
