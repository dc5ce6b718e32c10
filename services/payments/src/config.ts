import { Type } from '@sinclair/typebox';
import { DEFAULT_PORTS } from '@ppay/kernel';

/** payments-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const paymentsConfig = Type.Object({
  FX_PRICING_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS['fx-pricing'].grpc}` }),
  MARKETPLACE_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS.marketplace.grpc}` }),
  /** Fee schedule per gateway group as JSON (see src/domain/fees.ts); the defaults when empty. */
  FEE_SCHEDULE_JSON: Type.Optional(Type.String()),
  /** Allowed difference between the partner's conversion and ours (spec 8: 1%). */
  AMOUNT_TOLERANCE: Type.String({ default: '0.01', pattern: '^0(\\.\\d+)?$' }),
  /** Publishable key of the card gateway handed to partners for the embedded form (not a secret). */
  CARD_PUBLISHABLE_KEY: Type.String({ default: 'pk_sandbox_cardgateway_platform' }),
  GATEWAY_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  /** How long a charge for a brand-new merchant waits for marketplace's merchants.created event. */
  MERCHANT_EVENT_WAIT_MS: Type.Integer({ default: 3_000, minimum: 0 }),
});
