import { Type } from '@sinclair/typebox';
import { DEFAULT_PORTS } from '@ppay/runtime';
import { stripeConfig } from './processors/stripe/stripe-config.adapter';

/** payments-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const paymentsConfig = Type.Object({
  FX_PRICING_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS['fx-pricing'].grpc}` }),
  MARKETPLACE_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS.marketplace.grpc}` }),
  /** kyc: a payout's approval and payment check the payout account and KYC status it has now. */
  KYC_GRPC_ADDR: Type.String({ default: `127.0.0.1:${DEFAULT_PORTS.kyc.grpc}` }),
  /** Fee schedule per processor group as JSON (see src/charges/fees.ts); the defaults when empty. */
  FEE_SCHEDULE_JSON: Type.Optional(Type.String()),
  /** Allowed difference between the partner's conversion and ours (spec 8: 1%). */
  AMOUNT_TOLERANCE: Type.String({ default: '0.01', pattern: '^0(\\.\\d+)?$' }),
  /** Publishable key of the card processor handed to partners for the embedded form (not a secret). */
  CARD_PUBLISHABLE_KEY: Type.String({ default: 'pk_sandbox_cardgateway_platform' }),
  PROCESSOR_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  /** Simulated latency of the sandbox processors' initialisation (0 = none): shows partners a slow processor. */
  SANDBOX_INIT_DELAY_MS: Type.Integer({ default: 0, minimum: 0, maximum: 60_000 }),
  /** A successful payment is checked for its wallet credits this long after it succeeded (the consumer's head start). */
  LEDGER_RECONCILE_GRACE_MS: Type.Integer({ default: 5 * 60_000, minimum: 0 }),
  LEDGER_RECONCILE_INTERVAL_MS: Type.Integer({ default: 30_000, minimum: 100 }),
  /** How often entries left unapplied to their wallet, and payout wallet steps left unfinished, are finished. */
  WALLET_SWEEP_INTERVAL_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  /** How often every wallet's totals are checked against the sums of its ledger entries (ppay_wallet_drift). */
  WALLET_RECONCILE_INTERVAL_MS: Type.Integer({ default: 5 * 60_000, minimum: 100 }),
  /** How often initialising charges nobody finished (a crash, a processor that never answered) are abandoned. */
  CHARGE_SWEEP_INTERVAL_MS: Type.Integer({ default: 5_000, minimum: 100 }),
  /** How long a charge for a brand-new merchant waits for marketplace's merchants.created event. */
  MERCHANT_EVENT_WAIT_MS: Type.Integer({ default: 3_000, minimum: 0 }),
  /** Checkout session lifetime (spec 8: 30 minutes). */
  SESSION_TTL_MS: Type.Integer({ default: 30 * 60_000, minimum: 1_000 }),
  /** How often pending sessions past expires_at are marked expired. */
  SESSION_SWEEP_INTERVAL_MS: Type.Integer({ default: 5_000, minimum: 100 }),
  /** Declined card attempts after which a session fails. */
  SESSION_MAX_ATTEMPTS: Type.Integer({ default: 5, minimum: 1 }),
  /** Dispute fee per currency as JSON ({"USD": 1500, …}, minor units); the defaults when empty (disputes/dispute-funds.ts). */
  DISPUTE_FEES_JSON: Type.Optional(Type.String()),
  /** How long a merchant has to answer a dispute with evidence (evidence_due_by). */
  DISPUTE_RESPONSE_DAYS: Type.Integer({ default: 7, minimum: 1, maximum: 60 }),
  /** How often disputes past due, scheduled outcomes and opening disputes left by a crash are swept. */
  DISPUTE_SWEEP_INTERVAL_MS: Type.Integer({ default: 1_000, minimum: 100 }),
  /** How long after submitted sandbox evidence with winning_evidence / losing_evidence the dispute is decided. */
  SANDBOX_DISPUTE_DECISION_MS: Type.Integer({ default: 2_000, minimum: 0 }),
  /** A paid order not fulfilled within this many days counts as overdue (ppay_orders_unfulfilled_overdue, its alert). */
  ORDER_FULFILMENT_ALERT_DAYS: Type.Integer({ default: 3, minimum: 1, maximum: 90 }),
  /** Delay of the sandbox "fails after a delay" test card (4000 0000 0000 0119). */
  SANDBOX_PROCESSING_DELAY_MS: Type.Integer({ default: 2_000, minimum: 0 }),
  /**
   * A live charge still pending this long is looked up at its processor (a missed event), then again
   * each time this long after (processors/live-charge-reconciler.ts); also the threshold of
   * ppay_live_charges_pending_stale.
   */
  LIVE_CHARGE_RECONCILE_AFTER_MS: Type.Integer({ default: 15 * 60_000, minimum: 1_000 }),
  /** How often the reconciler of live charges runs, and how many it looks up per run. */
  LIVE_CHARGE_RECONCILE_INTERVAL_MS: Type.Integer({ default: 60_000, minimum: 100 }),
  LIVE_CHARGE_RECONCILE_BATCH: Type.Integer({ default: 50, minimum: 1, maximum: 1_000 }),
  /** A live charge older than this is no longer looked up (nobody paid it): its processor's events alone settle it. */
  LIVE_CHARGE_RECONCILE_MAX_AGE_MS: Type.Integer({ default: 24 * 3_600_000, minimum: 60_000 }),
  /** The live card gateway (processors/stripe/stripe-config.adapter.ts): off without STRIPE_SECRET_KEY. */
  ...stripeConfig.properties,
});
