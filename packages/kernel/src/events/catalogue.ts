import type { ComponentName } from '../components';
import type { Mode } from '../caller';
import type { KycPayoutAccountUpdated, KycSubmissionUpdated } from './kyc-payloads';
import type {
  ApiKeyChanged,
  MarketplaceUpdated,
  MarketplaceUpdatedV1,
  MarketplaceUpdatedV2,
  MerchantCreated,
  MerchantCreatedV1,
  MerchantCreatedV2,
  MerchantDeletionAcknowledged,
  MerchantDeletionRequested,
  MerchantSettingsUpdated,
  RelationshipChanged,
  RelationshipChangedV1,
  RelationshipChangedV2,
} from './merchant-payloads';
import type {
  DisputeEvent,
  OrderEvent,
  PaymentOutcome,
  PaymentOutcomeV1,
  PaymentOutcomeV2,
  PaymentOutcomeV3,
  PaymentOutcomeV4,
  PaymentRefunded,
  InstallmentCheckoutCompleted,
  SettlementEvent,
  SubscriptionCheckoutCompleted,
  SubscriptionCheckoutCreated,
  WalletEntryEvent,
} from './payment-payloads';
import type { InstallmentPlanEvent, SubscriptionEvent } from './subscription-payloads';

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
  installmentCheckoutCompleted: 'payments.installment_checkout.completed',
  subscriptionCreated: 'subscriptions.subscription.created',
  subscriptionRenewed: 'subscriptions.subscription.renewed',
  subscriptionPaymentFailed: 'subscriptions.subscription.payment_failed',
  subscriptionPaused: 'subscriptions.subscription.paused',
  subscriptionResumed: 'subscriptions.subscription.resumed',
  subscriptionCancelled: 'subscriptions.subscription.cancelled',
  installmentPlanCreated: 'subscriptions.installment_plan.created',
  installmentPlanCompleted: 'subscriptions.installment_plan.completed',
  installmentPlanDefaulted: 'subscriptions.installment_plan.defaulted',
  installmentPlanCancelled: 'subscriptions.installment_plan.cancelled',
  kycSubmissionUpdated: 'kyc.submission.updated',
  kycPayoutAccountUpdated: 'kyc.payout_account.updated',
  merchantDeletionRequested: 'deletions.merchant.requested',
  merchantDeletionAcknowledged: 'deletions.merchant.acknowledged',
  settlementRequested: 'payments.settlement.requested',
  settlementApproved: 'payments.settlement.approved',
  settlementRejected: 'payments.settlement.rejected',
  settlementPaid: 'payments.settlement.paid',
  settlementFailed: 'payments.settlement.failed',
  disputeCreated: 'payments.dispute.created',
  disputeUpdated: 'payments.dispute.updated',
  disputeClosed: 'payments.dispute.closed',
  disputeFundsWithdrawn: 'payments.dispute.funds_withdrawn',
  disputeFundsReinstated: 'payments.dispute.funds_reinstated',
  orderCreated: 'payments.order.created',
  orderFulfilled: 'payments.order.fulfilled',
  orderDelivered: 'payments.order.delivered',
  orderCancelled: 'payments.order.cancelled',
} as const;

export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

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
  'payments.dispute.created': DisputeEvent;
  'payments.dispute.updated': DisputeEvent;
  'payments.dispute.closed': DisputeEvent;
  'payments.dispute.funds_withdrawn': DisputeEvent;
  'payments.dispute.funds_reinstated': DisputeEvent;
  'payments.order.created': OrderEvent;
  'payments.order.fulfilled': OrderEvent;
  'payments.order.delivered': OrderEvent;
  'payments.order.cancelled': OrderEvent;
  'merchants.marketplace_updated': MarketplaceUpdated;
  'merchants.relationship_changed': RelationshipChanged;
  'payments.subscription_checkout.created': SubscriptionCheckoutCreated;
  'payments.subscription_checkout.completed': SubscriptionCheckoutCompleted;
  'payments.installment_checkout.completed': InstallmentCheckoutCompleted;
  'subscriptions.subscription.created': SubscriptionEvent;
  'subscriptions.subscription.renewed': SubscriptionEvent;
  'subscriptions.subscription.payment_failed': SubscriptionEvent;
  'subscriptions.subscription.paused': SubscriptionEvent;
  'subscriptions.subscription.resumed': SubscriptionEvent;
  'subscriptions.subscription.cancelled': SubscriptionEvent;
  'subscriptions.installment_plan.created': InstallmentPlanEvent;
  'subscriptions.installment_plan.completed': InstallmentPlanEvent;
  'subscriptions.installment_plan.defaulted': InstallmentPlanEvent;
  'subscriptions.installment_plan.cancelled': InstallmentPlanEvent;
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
      ? PaymentOutcomeV1 | PaymentOutcomeV2 | PaymentOutcomeV3 | PaymentOutcomeV4
      : S extends 'merchants.marketplace_updated'
        ? MarketplaceUpdatedV1 | MarketplaceUpdatedV2
        : S extends 'merchants.relationship_changed'
          ? RelationshipChangedV1 | RelationshipChangedV2
          : EventPayloads[S];
};

const upcastMerchantCreated = (d: MerchantCreatedV1 | MerchantCreatedV2): MerchantCreated =>
  'business_name' in d ? d : { ...d, business_name: '', customer_pays_fees: false };

const upcastPaymentOutcome = (
  d: PaymentOutcomeV1 | PaymentOutcomeV2 | PaymentOutcomeV3 | PaymentOutcomeV4,
): PaymentOutcome => {
  const v2: PaymentOutcomeV2 | PaymentOutcomeV3 | PaymentOutcomeV4 =
    'session_id' in d ? d : { ...d, session_id: null, product: null, subscription_frequency_key: null, metadata: {} };
  const v3: PaymentOutcomeV3 | PaymentOutcomeV4 = 'installment' in v2 ? (v2 as PaymentOutcomeV3) : { ...v2, installment: null };
  return 'quantity' in v3 ? (v3 as PaymentOutcomeV4) : { ...v3, variation: null, quantity: null };
};

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
