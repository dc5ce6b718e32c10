import { prefixedId, type Mode, type Money } from '@ppay/kernel';
import type { FeeBreakdown } from './fees';
import type { ProcessorGroup } from '../processors/processors';

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One refund of a charge, stored inside the charge document (ChargeRecord.refunds). `pending` counts
 * against what is left to refund until the processor answers; only `succeeded` counts in
 * `amount_refunded`; `failed` releases its amount.
 */
export interface RefundRecord {
  refund_id: string;
  /** The Idempotency-Key it was created with (unique within its charge), or null. */
  idempotency_key: string | null;
  request_fingerprint: string;
  /** In the charge currency. */
  amount: Money;
  reason: string | null;
  status: RefundStatus;
  failure_reason: string | null;
  /**
   * The charge's amount_refunded just before this refund succeeded (null until then). Refunds that
   * succeeded cover disjoint, adjacent slices [refunded_before, refunded_before + amount) of the
   * captured amount, which is what makes the proportional ledger reversals add up exactly.
   */
  refunded_before: number | null;
  processor_reference: string | null;
  created_at: Date;
  updated_at: Date;
}

export type MetadataValue = string | number | boolean;

/** Unknown or missing countries are reported as "Unknown" in geography analytics (spec 4.1). */
export const UNKNOWN_COUNTRY = 'Unknown';

export interface CustomerDetails {
  email: string;
  first_name: string;
  last_name: string;
  country: string;
}

/** How the merchant's priced amount became the customer's amount (present only with conversion). */
export interface Conversion {
  original: Money;
  converted: Money;
  /** The exact rate (1 unit of original = rate units of converted, surcharge included). */
  rate_decimal: string;
  /** The same rate as a number: the spec shows numbers; never used for arithmetic. */
  rate: number;
  source: string;
  surcharge_percent: number;
}

export type ChargeStatus = 'initializing' | 'pending' | 'succeeded' | 'failed';

/**
 * Why a charge failed before any money could move: the processor refused to initialise it, or the
 * attempt was abandoned (a crash, or a processor that never answered). Such a charge may be
 * initialised again, in place, by a retry with the same Idempotency-Key or reference.
 */
export const RETRYABLE_FAILURES = ['processor_unavailable', 'abandoned'] as const;

export function isRetryableFailure(c: Pick<ChargeRecord, 'status' | 'failure_reason'>): boolean {
  return c.status === 'failed' && (RETRYABLE_FAILURES as readonly (string | null)[]).includes(c.failure_reason);
}

/**
 * A charge (spec 2.2) and its transaction. Field names are the resource's: the Charge message of
 * payments.proto is this record minus what partners never see, so a new field reaches partners by
 * adding it here, to the proto and to the gateway schema (docs/adding-a-feature.md).
 */
export interface ChargeRecord {
  charge_id: string;
  transaction_id: string;
  merchant_id: number;
  mode: Mode;
  reference: string | null;
  /** The Idempotency-Key the charge was created with (unique per merchant and mode). */
  idempotency_key: string | null;
  /** SHA-256 of the request's canonical parameters: a reused key or reference must match it. */
  request_fingerprint: string;
  /** Processor initialisations tried (more than one after a retry over a failed or abandoned one). */
  attempts: number;
  status: ChargeStatus;
  processor_group: ProcessorGroup;
  /** Spec 2.2 `payment_gateway`: the processor's public identifier. */
  payment_gateway: string;
  /** Spec 4.1 `amount`: what the customer pays before any fee they pay, in the charge currency. */
  amount: Money;
  /** Spec 4.1 `total_amount` / `total_currency`: the merchant's priced amount, source of the wallet credit. */
  total: Money;
  conversion: Conversion | null;
  fee_details: FeeBreakdown;
  customer: CustomerDetails;
  metadata: Record<string, MetadataValue>;
  description: string;
  callback_url: string;
  sub_merchant_id: number | null;
  split: { commission_rate: string; commission_source: string } | null;
  /** The processor's id of the payment, once initialised. */
  processor_reference: string | null;
  /** Card route only (spec 2.2): what the embedded payment form needs. */
  client_secret: string | null;
  publishable_key: string | null;
  gateway_account_id: string | null;
  failure_reason: string | null;
  completed_at: Date | null;
  /**
   * Refunds live inside the charge (one document), so "never more than captured" is a condition on
   * one document: every change of `refunds` is a compare-and-set on `refund_version`.
   */
  refunds: RefundRecord[];
  /** Sum of the succeeded refunds, in the charge currency (minor units); shown on the charge. */
  amount_refunded: number;
  /** Whether the whole captured amount has been refunded. */
  refunded: boolean;
  refund_version: number;
  created_at: Date;
  updated_at: Date;
}

/** What a new charge is made of; the rest starts empty (no processor data, not completed). */
export type ChargeDraft = Omit<
  ChargeRecord,
  | 'charge_id'
  | 'transaction_id'
  | 'attempts'
  | 'processor_reference'
  | 'client_secret'
  | 'publishable_key'
  | 'gateway_account_id'
  | 'failure_reason'
  | 'completed_at'
  | 'refunds'
  | 'amount_refunded'
  | 'refunded'
  | 'refund_version'
  | 'created_at'
  | 'updated_at'
>;

/** A new charge with fresh charge and transaction ids (charges and checkout session payments). */
export function newCharge(draft: ChargeDraft, now: Date): ChargeRecord {
  return {
    charge_id: prefixedId('ch'),
    transaction_id: prefixedId('txn'),
    attempts: 1,
    ...draft,
    processor_reference: null,
    client_secret: null,
    publishable_key: null,
    gateway_account_id: null,
    failure_reason: null,
    completed_at: null,
    refunds: [],
    amount_refunded: 0,
    refunded: false,
    refund_version: 0,
    created_at: now,
    updated_at: now,
  };
}

/** Spec 4.1 preview response `data`, field for field. */
export interface ChargePreview {
  preview: true;
  payment_gateway: string;
  mode: Mode;
  is_international: boolean;
  business_country: string;
  customer_country: string;
  customer: {
    currency: string;
    base_amount: number;
    transaction_fee: number;
    total_charged: number;
    pays_fees: boolean;
  };
  business: { currency: string; priced_amount: number };
  /** Only when the customer's currency differs from the pricing currency. */
  conversion: {
    original_amount: number;
    original_currency: string;
    converted_amount: number;
    converted_currency: string;
    exchange_rate: number;
    exchange_rate_decimal: string;
  } | null;
}

/** The preview's flat conversion block (spec 4.1) from the record's Money-typed conversion. */
export function previewConversion(c: Conversion | null): ChargePreview['conversion'] {
  if (!c) return null;
  return {
    original_amount: c.original.amount,
    original_currency: c.original.currency,
    converted_amount: c.converted.amount,
    converted_currency: c.converted.currency,
    exchange_rate: c.rate,
    exchange_rate_decimal: c.rate_decimal,
  };
}
