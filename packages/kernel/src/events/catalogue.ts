import type { ComponentName } from '../components';
import type { Mode } from '../caller';
import type { Money } from '../money';

/**
 * Every NATS subject and its payload type, in one place. Each stream belongs to the component
 * that publishes on it; that component declares the stream at boot (idempotently).
 */
export const STREAMS = {
  APIKEYS: { subjects: ['apikeys.>'], owner: 'webhooks' },
  MERCHANTS: { subjects: ['merchants.>'], owner: 'marketplace' },
  PAYMENTS: { subjects: ['payments.>'], owner: 'payments' },
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
  walletCredited: 'payments.wallet.credited',
  walletDebited: 'payments.wallet.debited',
  marketplaceUpdated: 'merchants.marketplace_updated',
  relationshipChanged: 'merchants.relationship_changed',
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
export interface MarketplaceUpdated {
  marketplace_id: number;
  name: string;
  /** Decimal string (0.0800 = 8%), null when there is no default (commission falls back to 0). */
  default_commission_rate: string | null;
  status: 'active';
}

/**
 * An operator ↔ sub-merchant relationship was created or changed (spec 2.6, 3.5). The relationship
 * document is the source of truth; `version` grows with every change of one relationship.
 */
export interface RelationshipChanged {
  relationship_id: number;
  marketplace_id: number;
  merchant_id: number;
  status: 'pending' | 'active' | 'suspended';
  /** Per-merchant decimal rate, null when the marketplace default applies. */
  commission_rate: string | null;
  version: number;
  change: 'created' | 'invited' | 'accepted' | 'commission_updated' | 'suspended' | 'reactivated';
}

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
  'payments.wallet.credited': WalletEntryEvent;
  'payments.wallet.debited': WalletEntryEvent;
  'merchants.marketplace_updated': MarketplaceUpdated;
  'merchants.relationship_changed': RelationshipChanged;
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
      : EventPayloads[S];
};

const upcastMerchantCreated = (d: MerchantCreatedV1 | MerchantCreatedV2): MerchantCreated =>
  'business_name' in d ? d : { ...d, business_name: '', customer_pays_fees: false };

const upcastPaymentOutcome = (d: PaymentOutcomeV1 | PaymentOutcomeV2): PaymentOutcome =>
  'session_id' in d ? d : { ...d, session_id: null, product: null, subscription_frequency_key: null, metadata: {} };

const UPCASTERS: { [S in Subject]?: (data: StoredPayloads[S]) => EventPayloads[S] } = {
  'merchants.created': upcastMerchantCreated,
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
