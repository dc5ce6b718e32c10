import { Type } from '@sinclair/typebox';
import { DEFAULT_PORTS } from '@ppay/runtime';

/** marketplace-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const marketplaceConfig = Type.Object({
  MERCHANT_CACHE_TTL_MS: Type.Integer({ default: 30_000, minimum: 0 }),
  MERCHANT_CACHE_MAX_ENTRIES: Type.Integer({ default: 10_000, minimum: 1 }),
  /** kyc (delete merchant: the connected gateway account's balance, closed when zero). */
  KYC_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS.kyc.grpc}` }),
  /**
   * How long DELETE .../delete waits for every service to acknowledge before answering 400 (the
   * deletion goes on; a retry finishes it). Below the gateway's deadline for the call.
   */
  DELETE_MERCHANT_WAIT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  /** Wallets and staged payouts (balance, payout operations) live in payments; payout accounts in kyc (above). */
  PAYMENTS_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS.payments.grpc}` }),
});
