import type { ComponentName } from '../ports';
import type { Mode } from '../caller';

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

export interface MerchantCreated {
  merchant_id: number;
  country: string;
  baseline_currency: string;
  is_marketplace_operator: boolean;
  marketplace_id: number | null;
  /** Display name (hosted checkout page); absent in events published before it was added. */
  business_name?: string;
  /** Settings at creation (version 0); absent in events published before settings existed. */
  customer_pays_fees?: boolean;
}

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

/** Spec 6.5 MoneyAmount and MulticurrencyBreakdown, as payment events carry them. */
export interface MoneyAmount {
  amount: number;
  currency: string;
}

export interface MulticurrencyBreakdown {
  customer_paid: MoneyAmount;
  merchant_gross: MoneyAmount;
  merchant_net: MoneyAmount;
  fees: { platform_fee: MoneyAmount; gateway_fee: MoneyAmount; total: MoneyAmount };
  /** Omitted when the customer's and the merchant's currencies are the same. */
  conversion?: { from_currency: string; to_currency: string; rate: number; surcharge_percent: number };
}

/** A charge reached a final state (payments.payment.succeeded / .failed). */
export interface PaymentOutcome {
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
  /** Set when the payment was made on a hosted checkout session (spec 4.2). */
  session_id?: string | null;
  /** Spec 6.4 product object; null for charges, which have no catalogue product. */
  product?: { id: number | null; title: string; type: string } | null;
  /** Sessions with subscription_frequency_key: monthly | quarterly | yearly. */
  subscription_frequency_key?: string | null;
  /** The partner's scalar metadata (sessions). */
  metadata?: Record<string, string | number | boolean>;
}

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
  'merchants.marketplace_updated': MarketplaceUpdated;
  'merchants.relationship_changed': RelationshipChanged;
}

/** What travels on the wire for every internal event. `event_id` doubles as Nats-Msg-Id. */
export interface EventEnvelope<S extends Subject = Subject> {
  event_id: string;
  subject: S;
  occurred_at: string;
  merchant_id?: number;
  mode?: Mode;
  data: EventPayloads[S];
}

export function streamForSubject(subject: string): StreamName {
  for (const [name, def] of Object.entries(STREAMS)) {
    if (def.subjects.some((pattern) => subject.startsWith(pattern.replace(/>$/, '')))) return name as StreamName;
  }
  throw new Error(`No stream captures subject ${subject}`);
}
