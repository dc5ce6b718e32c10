import type { ComponentName } from '../components';
import type { Mode } from '../caller';
import type { Money } from '../money';
import type { SubscriptionFrequency } from '../subscriptions';

/**
 * Every NATS subject and its payload type, in one place. Each stream belongs to the component
 * that publishes on it; that component declares the stream at boot (idempotently).
 */
export const STREAMS = {
  APIKEYS: { subjects: ['apikeys.>'], owner: 'webhooks' },
  MERCHANTS: { subjects: ['merchants.>'], owner: 'marketplace' },
  PAYMENTS: { subjects: ['payments.>'], owner: 'payments' },
  SUBSCRIPTIONS: { subjects: ['subscriptions.>'], owner: 'subscriptions' },
  KYC: { subjects: ['kyc.>'], owner: 'kyc' },
  /** Delete merchant (spec 3.5, 4.9): marketplace asks, every service (marketplace too) acknowledges. */
  DELETIONS: { subjects: ['deletions.>'], owner: 'marketplace' },
} as const satisfies Record<string, { subjects: readonly string[]; owner: ComponentName }>;

export type StreamName = keyof typeof STREAMS;

export const SUBJECTS = {
  apiKeyCreated: 'apikeys.created',
  apiKeyRevoked: 'apikeys.revoked',
  apiKeyStatusChanged: 'apikeys.status_changed',
  apiKeyWebhookUpdated: 'apikeys.webhook_updated',
  apiKeySecretRotated: 'apikeys.secret_rotated',
  merchantCreated: 'merchants.created',
  merchantSettingsUpdated: 'merchants.settings_updated',
  paymentSucceeded: 'payments.payment.succeeded',
  paymentFailed: 'payments.payment.failed',
  paymentRefunded: 'payments.payment.refunded',
  walletCredited: 'payments.wallet.credited',
  walletDebited: 'payments.wallet.debited',
  marketplaceUpdated: 'merchants.marketplace_updated',
  relationshipChanged: 'merchants.relationship_changed',
  subscriptionCheckoutCreated: 'payments.subscription_checkout.created',
  subscriptionCheckoutCompleted: 'payments.subscription_checkout.completed',
  subscriptionCreated: 'subscriptions.subscription.created',
  subscriptionRenewed: 'subscriptions.subscription.renewed',
  subscriptionPaymentFailed: 'subscriptions.subscription.payment_failed',
  subscriptionPaused: 'subscriptions.subscription.paused',
  subscriptionResumed: 'subscriptions.subscription.resumed',
  subscriptionCancelled: 'subscriptions.subscription.cancelled',
  kycSubmissionUpdated: 'kyc.submission.updated',
  kycPayoutAccountUpdated: 'kyc.payout_account.updated',
  merchantDeletionRequested: 'deletions.merchant.requested',
  merchantDeletionAcknowledged: 'deletions.merchant.acknowledged',
  settlementRequested: 'payments.settlement.requested',
  settlementApproved: 'payments.settlement.approved',
  settlementRejected: 'payments.settlement.rejected',
  settlementPaid: 'payments.settlement.paid',
  settlementFailed: 'payments.settlement.failed',
} as const;

export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

export interface ApiKeyChanged {
  key_id: string;
  merchant_id: number;
  mode: Mode;
  status: 'active' | 'disabled' | 'revoked';
  api_version: string;
}

/** merchants.created as first published (before business names and settings existed). */
export interface MerchantCreatedV1 {
  merchant_id: number;
  country: string;
  baseline_currency: string;
  is_marketplace_operator: boolean;
  marketplace_id: number | null;
}

/** merchants.created since the hosted checkout page (display name) and business settings (version 0). */
export interface MerchantCreatedV2 extends MerchantCreatedV1 {
  business_name: string;
  customer_pays_fees: boolean;
}

export type MerchantCreated = MerchantCreatedV2;

/**
 * A merchant changed its business settings. `settings_version` grows with every change, so a
 * consumer that sees them out of order keeps the newest.
 */
export interface MerchantSettingsUpdated {
  merchant_id: number;
  customer_pays_fees: boolean;
  settings_version: number;
}

/** An operator set up (or re-set up) its marketplace (spec 4.9 POST /marketplace/setup). */
/** merchants.marketplace_updated as first published (one marketplace per operator, whatever the mode). */
export interface MarketplaceUpdatedV1 {
  marketplace_id: number;
  name: string;
  /** Decimal string (0.0800 = 8%), null when there is no default (commission falls back to 0). */
  default_commission_rate: string | null;
  status: 'active';
}

/** An operator's marketplace settings in one mode (sandbox and live are separate marketplaces). */
export interface MarketplaceUpdatedV2 extends MarketplaceUpdatedV1 {
  mode: Mode;
}

export type MarketplaceUpdated = MarketplaceUpdatedV2;

/**
 * An operator ↔ sub-merchant relationship was created or changed (spec 2.6, 3.5). The relationship
 * document is the source of truth; `version` grows with every change of one relationship.
 */
export interface RelationshipChangedV1 {
  relationship_id: number;
  marketplace_id: number;
  merchant_id: number;
  status: 'pending' | 'active' | 'suspended';
  /** Per-merchant decimal rate, null when the marketplace default applies. */
  commission_rate: string | null;
  version: number;
  change: 'created' | 'invited' | 'accepted' | 'commission_updated' | 'suspended' | 'reactivated';
}

/** KYC submission statuses (spec 3.3 plus pending_onboarding on the connected-account route). */
export const KYC_STATUSES = [
  'not_started',
  'pending_review',
  'approved',
  'rejected',
  'additional_info_requested',
  'revoked',
  'pending_onboarding',
] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

/**
 * Facts about a sub-merchant's KYC case and payout set-up that both KYC events carry, so a consumer
 * of either knows whether the sub-merchant can be paid out. `version` grows with every change of the
 * case (one document in kyc), so a consumer that sees events out of order keeps the newest.
 * Delivered to the operator (`envelope.merchant_id` = `marketplace_id`); account numbers only masked.
 */
export interface KycCaseFacts {
  submission_id: number;
  /** The sub-merchant. */
  merchant_id: number;
  /** The operator whose call (or whose sub-merchant's review) caused the event. */
  marketplace_id: number;
  mode: Mode;
  status: KycStatus;
  /** `service` = in-house review, `gateway` = connected-account onboarding (spec 2.7). */
  provider: 'service' | 'gateway';
  settlement_currency: string;
  /** Approved KYC and a payout account in the settlement currency. */
  payout_eligible: boolean;
  version: number;
}

/** kyc.submission.updated: every status change of a KYC submission (spec 3.3). */
export interface KycSubmissionUpdated extends KycCaseFacts {
  previous_status: KycStatus;
  change:
    | 'submitted'
    | 'auto_approved'
    | 'approved'
    | 'rejected'
    | 'info_requested'
    | 'resubmitted'
    | 'revoked'
    | 'onboarding_started'
    | 'onboarding_completed';
  business_type: 'individual' | 'registered_business';
  country_mismatch: boolean;
  rejection_reason: string | null;
}

/** kyc.payout_account.updated: the payout account was set up, changed or detached (spec 4.9 payout). */
export interface KycPayoutAccountUpdated extends KycCaseFacts {
  change: 'created' | 'updated' | 'detached';
  /** Null once detached. */
  account: {
    currency: string;
    country: string;
    payment_gateway: string;
    payout_method: 'bank_transfer' | 'mobile_money' | 'connected_account';
    bank_name: string | null;
    account_number_masked: string | null;
  } | null;
}
/** A relationship belongs to one mode: a sandbox relationship never splits a live payment. */
export interface RelationshipChangedV2 extends RelationshipChangedV1 {
  mode: Mode;
}

export type RelationshipChanged = RelationshipChangedV2;

/** Spec 6.5 MoneyAmount: the kernel's Money (integer minor units + ISO 4217), never a float. */
export type MoneyAmount = Money;

export interface MulticurrencyBreakdown {
  customer_paid: MoneyAmount;
  merchant_gross: MoneyAmount;
  merchant_net: MoneyAmount;
  fees: { platform_fee: MoneyAmount; gateway_fee: MoneyAmount; total: MoneyAmount };
  /** Omitted when the customer's and the merchant's currencies are the same. */
  conversion?: {
    from_currency: string;
    to_currency: string;
    /** The spec's number, for display; `rate_decimal` is the exact value. */
    rate: number;
    rate_decimal: string;
    surcharge_percent: number;
  };
}

/** A charge reached a final state (payments.payment.succeeded / .failed), as first published (charges only). */
export interface PaymentOutcomeV1 {
  charge_id: string;
  transaction_id: string;
  merchant_id: number;
  status: 'succeeded' | 'failed';
  payment_type: 'one_time' | 'subscription';
  gateway: string;
  reference: string | null;
  /** What the customer was charged, in the charge currency (spec 4.1 `amount` plus any fee they pay). */
  amount: MoneyAmount;
  /** The merchant's priced amount (spec 4.1 `total_amount`), source of truth for the wallet credit. */
  total: MoneyAmount;
  transaction_fee: MoneyAmount;
  customer_pays_fees: boolean;
  breakdown: MulticurrencyBreakdown;
  customer: { email: string; first_name: string; last_name: string; country: string };
  sub_merchant_id: number | null;
  failure_reason: string | null;
  completed_at: string;
}

/** Since hosted checkout sessions: the session, the spec 6.4 product object and the partner's metadata. */
export interface PaymentOutcomeV2 extends PaymentOutcomeV1 {
  /** Set when the payment was made on a hosted checkout session (spec 4.2). */
  session_id: string | null;
  /** Spec 6.4 product object; null for charges, which have no catalogue product. */
  product: { id: number | null; title: string; type: string } | null;
  /** Sessions with subscription_frequency_key. */
  subscription_frequency_key: string | null;
  metadata: Record<string, string | number | boolean>;
}

export type PaymentOutcome = PaymentOutcomeV2;

/**
 * A hosted checkout session with `subscription_frequency_key` was created (payments → subscriptions,
 * which records a `pending` subscription). Only subscription sessions publish it.
 */
export interface SubscriptionCheckoutCreated {
  session_id: string;
  merchant_id: number;
  /** Spec 6.4 product object; `id` is null for a session sold by product_name. */
  product: { id: number | null; title: string; type: string };
  /** The recurring price the merchant set (before any fee the customer pays), charged every period. */
  price: Money;
  customer: { email: string; first_name: string; last_name: string; country: string };
  frequency: SubscriptionFrequency;
  /** Free trial (beyond the spec): no first charge, billing starts at trial end. */
  trial_days: number | null;
  metadata: Record<string, string | number | boolean>;
  created_at: string;
  expires_at: string;
}

/**
 * The customer completed a subscription checkout: the first period is paid (`charge_id` set), or the
 * card was saved for a trial (`charge_id` null). Carries the whole checkout so the subscription can be
 * created even if this event is handled before `subscription_checkout.created`.
 */
export interface SubscriptionCheckoutCompleted extends SubscriptionCheckoutCreated {
  /** The saved payment method (owned by payments) that renewals charge off-session. */
  payment_method_id: string;
  card: { brand: string; last4: string };
  charge_id: string | null;
  transaction_id: string | null;
  completed_at: string;
}

/**
 * Every subscriptions.subscription.* event carries the subscription as it is after the change (spec
 * 6.4: `subscription.created` adds plan, current_period and trial fields), plus what caused it.
 */
export interface SubscriptionEvent {
  subscription_id: string;
  merchant_id: number;
  status: 'pending' | 'active' | 'due' | 'cancelled' | 'paused';
  payment_status: 'none' | 'paid' | 'failed' | 'pending';
  product: { id: number | null; title: string; type: string };
  customer: { email: string; first_name: string; last_name: string };
  plan: { frequency: SubscriptionFrequency; amount: Money; product_id: number | null };
  current_period: { index: number; start: string; end: string } | null;
  trial: { trial_start: string; trial_end: string } | null;
  next_payment_date: string | null;
  access_until: string | null;
  cancel_at_period_end: boolean;
  cancelled_at: string | null;
  pause_reason: string | null;
  dunning: { attempts_left: number; next_retry_at: string | null; decline_reason: string | null };
  checkout_session_id: string | null;
  /** The renewal charge behind subscription.renewed / subscription.payment_failed; null otherwise. */
  charge_id: string | null;
  /** The subscription's clock when it happened (sandbox subscriptions can be advanced: spec-external helper). */
  effective_at: string;
  created_at: string;
}

/**
 * One wallet ledger entry (spec 2.9, 6.4 wallet.credited / wallet.debited), published once per entry
 * from the entry's own document (its outbox), so `entry_id` (the entry's idempotency key) is unique.
 */
export interface WalletEntryEvent {
  entry_id: string;
  merchant_id: number;
  kind: 'credit' | 'debit';
  /** payment | marketplace_operator | marketplace_split today; payouts and refunds will add theirs. */
  reason: string;
  amount: MoneyAmount;
  /** The charge behind the entry, when there is one. */
  charge_id: string | null;
  /** Spec 2.11 split record for marketplace split credits; null otherwise. */
  split: Record<string, unknown> | null;
  created_at: string;
}

/**
 * A refund of a charge succeeded (payments.payment.refunded, the webhook payment.refunded): one event
 * per refund, published from the charge's outbox in the write that recorded it. Failed refunds
 * publish nothing (nothing moved).
 */
export interface PaymentRefunded {
  charge_id: string;
  transaction_id: string;
  merchant_id: number;
  sub_merchant_id: number | null;
  reference: string | null;
  gateway: string;
  /** What the customer paid: the most that can be refunded in total (charge currency). */
  amount_captured: MoneyAmount;
  /** Sum of the charge's succeeded refunds, this one included. */
  amount_refunded: MoneyAmount;
  /** The whole captured amount has been refunded. */
  refunded: boolean;
  refund: {
    refund_id: string;
    amount: MoneyAmount;
    status: 'succeeded';
    reason: string | null;
    /**
     * amount_refunded before this refund: the refund covers [refunded_before, refunded_before + amount)
     * of the capture, which the ledger's proportional reversal needs (internal; not rendered).
     */
    refunded_before: number;
    created_at: string;
  };
  metadata: Record<string, string | number | boolean>;
  refunded_at: string;
}

/**
 * Delete merchant: which of the merchant's data to delete. `every_mode` deletes the whole business
 * (every mode, and the data that has no mode: the business record, products, price rules); otherwise
 * only the documents of `mode` (docs/decisions.md, Delete merchant).
 */
export interface MerchantDeletionScope {
  deletion_id: string;
  merchant_id: number;
  mode: Mode;
  every_mode: boolean;
}

/** deletions.merchant.requested: published by marketplace from the deletion document's outbox. */
export type MerchantDeletionRequested = MerchantDeletionScope;

/** deletions.merchant.acknowledged: one service has deleted everything of the scope it owns. */
export interface MerchantDeletionAcknowledged {
  deletion_id: string;
  merchant_id: number;
  service: ComponentName;
  /** Documents deleted by this pass (0 on a repeat), per collection. */
  deleted: Record<string, number>;
}

/**
 * A staged payout request (spec 2.10) after a change: requested (amount reserved), approved (withdrawal
 * payout_pending), rejected (reservation released), paid (final wallet debit), failed (released).
 */
export interface SettlementEvent {
  payout_request_id: number;
  withdrawal_id: number | null;
  merchant_id: number;
  marketplace_id: number;
  reference: string;
  amount: MoneyAmount;
  request_status: 'pending' | 'approved' | 'rejected';
  withdrawal_status: 'payout_pending' | 'paid' | 'failed' | null;
  payment_gateway: string;
  payout_method: string;
  approved_at: string | null;
  rejected_at: string | null;
  rejection_reason: string | null;
  paid_at: string | null;
  failed_at: string | null;
  failure_reason: string | null;
  created_at: string;
}

/** What publishers write today, per subject. */
export interface EventPayloads {
  'apikeys.created': ApiKeyChanged;
  'apikeys.revoked': ApiKeyChanged;
  'apikeys.status_changed': ApiKeyChanged;
  'apikeys.webhook_updated': ApiKeyChanged;
  'apikeys.secret_rotated': ApiKeyChanged;
  'merchants.created': MerchantCreated;
  'merchants.settings_updated': MerchantSettingsUpdated;
  'payments.payment.succeeded': PaymentOutcome;
  'payments.payment.failed': PaymentOutcome;
  'payments.payment.refunded': PaymentRefunded;
  'payments.wallet.credited': WalletEntryEvent;
  'payments.wallet.debited': WalletEntryEvent;
  'payments.settlement.requested': SettlementEvent;
  'payments.settlement.approved': SettlementEvent;
  'payments.settlement.rejected': SettlementEvent;
  'payments.settlement.paid': SettlementEvent;
  'payments.settlement.failed': SettlementEvent;
  'merchants.marketplace_updated': MarketplaceUpdated;
  'merchants.relationship_changed': RelationshipChanged;
  'payments.subscription_checkout.created': SubscriptionCheckoutCreated;
  'payments.subscription_checkout.completed': SubscriptionCheckoutCompleted;
  'subscriptions.subscription.created': SubscriptionEvent;
  'subscriptions.subscription.renewed': SubscriptionEvent;
  'subscriptions.subscription.payment_failed': SubscriptionEvent;
  'subscriptions.subscription.paused': SubscriptionEvent;
  'subscriptions.subscription.resumed': SubscriptionEvent;
  'subscriptions.subscription.cancelled': SubscriptionEvent;
  'kyc.submission.updated': KycSubmissionUpdated;
  'kyc.payout_account.updated': KycPayoutAccountUpdated;
  'deletions.merchant.requested': MerchantDeletionRequested;
  'deletions.merchant.acknowledged': MerchantDeletionAcknowledged;
}

/**
 * Every payload version that may still sit in a stream (30 days of retention), per subject. A
 * consumer never sees these: the consumer runtime upcasts to the current version first.
 */
export type StoredPayloads = {
  [S in Subject]: S extends 'merchants.created'
    ? MerchantCreatedV1 | MerchantCreatedV2
    : S extends 'payments.payment.succeeded' | 'payments.payment.failed'
      ? PaymentOutcomeV1 | PaymentOutcomeV2
      : S extends 'merchants.marketplace_updated'
        ? MarketplaceUpdatedV1 | MarketplaceUpdatedV2
        : S extends 'merchants.relationship_changed'
          ? RelationshipChangedV1 | RelationshipChangedV2
          : EventPayloads[S];
};

const upcastMerchantCreated = (d: MerchantCreatedV1 | MerchantCreatedV2): MerchantCreated =>
  'business_name' in d ? d : { ...d, business_name: '', customer_pays_fees: false };

const upcastPaymentOutcome = (d: PaymentOutcomeV1 | PaymentOutcomeV2): PaymentOutcome =>
  'session_id' in d ? d : { ...d, session_id: null, product: null, subscription_frequency_key: null, metadata: {} };

/**
 * Marketplace data written before modes existed was made while only sandbox could charge (no live
 * processor was configured), so it is sandbox data (docs/decisions.md, Hardening).
 */
const upcastToSandbox = <T extends object>(d: T | (T & { mode: Mode })): T & { mode: Mode } =>
  'mode' in d ? d : { ...d, mode: 'sandbox' };

const UPCASTERS: { [S in Subject]?: (data: StoredPayloads[S]) => EventPayloads[S] } = {
  'merchants.created': upcastMerchantCreated,
  'merchants.marketplace_updated': upcastToSandbox<MarketplaceUpdatedV1>,
  'merchants.relationship_changed': upcastToSandbox<RelationshipChangedV1>,
  'payments.payment.succeeded': upcastPaymentOutcome,
  'payments.payment.failed': upcastPaymentOutcome,
};

/** Brings a payload read from a stream to the version publishers write today. */
export function upcast<S extends Subject>(subject: S, data: StoredPayloads[S]): EventPayloads[S] {
  const fn = UPCASTERS[subject] as ((d: StoredPayloads[S]) => EventPayloads[S]) | undefined;
  return fn ? fn(data) : (data as EventPayloads[S]);
}

/**
 * What travels on the wire for every internal event. `event_id` doubles as Nats-Msg-Id. Distributive
 * over a union of subjects, so a consumer of several subjects narrows `data` by checking `subject`.
 */
export type EventEnvelope<S extends Subject = Subject> = S extends Subject
  ? {
      event_id: string;
      subject: S;
      occurred_at: string;
      merchant_id?: number;
      mode?: Mode;
      data: EventPayloads[S];
    }
  : never;

export function isSubject(value: string): value is Subject {
  return (Object.values(SUBJECTS) as string[]).includes(value);
}

export function streamForSubject(subject: string): StreamName {
  for (const [name, def] of Object.entries(STREAMS)) {
    if (def.subjects.some((pattern) => subject.startsWith(pattern.replace(/>$/, '')))) return name as StreamName;
  }
  throw new Error(`No stream captures subject ${subject}`);
}
