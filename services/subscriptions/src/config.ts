import { Type } from '@sinclair/typebox';
import { DEFAULT_PORTS } from '@ppay/runtime';

/** subscriptions-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const serviceConfig = Type.Object({
  PAYMENTS_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS.payments.grpc}` }),
  /** How often the renewal scheduler looks for due subscriptions. */
  SCHEDULER_INTERVAL_MS: Type.Integer({ default: 1_000, minimum: 50 }),
  /** How long a claimed subscription belongs to one scheduler; a crashed scheduler's work resumes after it. */
  SCHEDULER_LEASE_MS: Type.Integer({ default: 30_000, minimum: 1_000 }),
  /** Subscriptions one process renews at once. */
  SCHEDULER_CONCURRENCY: Type.Integer({ default: 4, minimum: 1, maximum: 256 }),
  /** false: this replica serves the API and the sandbox clock but runs no background scheduler. */
  SCHEDULER_ENABLED: Type.Boolean({ default: true }),
});
