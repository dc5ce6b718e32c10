import { prefixedId, type Mode, type Money } from '@ppay/kernel';
import type { FeeBreakdown } from './fees';
import type { ProcessorAuthorization } from '../processors/ports';
import type { ProcessorGroup } from '../processors/processors';
import type { RefundRecord } from '../refunds/refund';

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
  split: ChargeSplit | null;
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
  /** Sum of the succeeded refunds, in the charge currency; shown on the charge. */
  amount_refunded: Money;
  /** Whether the whole captured amount has been refunded. */
  refunded: boolean;
  refund_version: number;
  /**
   * What a dispute holds of the charge, in the charge currency (0 without a dispute). While the dispute
   * is open, and for good once it is lost, this part of the capture cannot be refunded.
   */
  amount_disputed: Money;
  /** The charge's dispute, if it has one (at most one): its id, where it stands and what it holds. */
  dispute: ChargeDisputeHold | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A dispute's hold on its charge (disputes/). It is written on the charge, compare-and-set on
 * `refund_version` like the refunds, because refunds and the dispute share one cap.
 */
export interface ChargeDisputeHold {
  dispute_id: string;
  status: 'open' | 'won' | 'lost';
  amount: Money;
}

/** Where a marketplace charge's commission comes from (spec 4.1): resolved when the charge is made. */
export interface ChargeSplit {
  commission_rate: string;
  commission_source: string;
}

/** What every new charge is made of, however it came to be. */
interface ChargeBasis {
  merchant_id: number;
  mode: Mode;
  processor_group: ProcessorGroup;
  payment_gateway: string;
  /** What the customer pays before any fee they pay, in the charge currency. */
  amount: Money;
  fee_details: FeeBreakdown;
  customer: CustomerDetails;
  metadata: Record<string, MetadataValue>;
  description: string;
}

/**
 * How a new charge came to be, with what only that way brings:
 * - `one_time`: POST /payments/charges (spec 4.1), bound to its Idempotency-Key and reference and to
 *   the fingerprint of its parameters; it may be converted or split, and its processor initialises
 *   it before the customer pays;
 * - `checkout`: the payment on a hosted checkout session, bound to the session (its id is the reference);
 * - `off_session`: a saved payment method charged without the customer (renewals), bound to its key,
 *   which is also its reference (a renewal's charge names its subscription and period).
 * Both card payments start `pending`: the card is being authorised as the charge is made.
 */
export type ChargeOrigin = ChargeBasis &
  (
    | {
        kind: 'one_time';
        idempotency_key: string | null;
        reference: string | null;
        request_fingerprint: string;
        /** The merchant's priced amount (`amount` converted from it, or equal to it). */
        total: Money;
        conversion: Conversion | null;
        callback_url: string;
        sub_merchant_id: number | null;
        split: ChargeSplit | null;
      }
    | {
        kind: 'checkout';
        session_id: string;
        success_url: string;
        /** A marketplace session: the operator's charge for its sub-merchant (split like a one-time charge). */
        sub_merchant_id: number | null;
        split: ChargeSplit | null;
      }
    | { kind: 'off_session'; idempotency_key: string; request_fingerprint: string }
  );

/**
 * A new charge with fresh charge and transaction ids: the one place a charge is drafted, whatever
 * made it, so a field stored on every charge is set here. The rest starts empty (no processor data,
 * not completed, no refunds).
 */
export function newCharge(origin: ChargeOrigin, now: Date): ChargeRecord {
  const oneTime = origin.kind === 'one_time' ? origin : null;
  return {
    charge_id: prefixedId('ch'),
    transaction_id: prefixedId('txn'),
    attempts: 1,
    merchant_id: origin.merchant_id,
    mode: origin.mode,
    ...bindingOf(origin),
    status: oneTime ? 'initializing' : 'pending',
    processor_group: origin.processor_group,
    payment_gateway: origin.payment_gateway,
    amount: origin.amount,
    total: oneTime ? oneTime.total : origin.amount,
    conversion: oneTime ? oneTime.conversion : null,
    fee_details: origin.fee_details,
    customer: origin.customer,
    metadata: origin.metadata,
    description: origin.description,
    callback_url: oneTime ? oneTime.callback_url : origin.kind === 'checkout' ? origin.success_url : '',
    sub_merchant_id: origin.kind === 'off_session' ? null : origin.sub_merchant_id,
    split: origin.kind === 'off_session' ? null : origin.split,
    processor_reference: null,
    client_secret: null,
    publishable_key: null,
    gateway_account_id: null,
    failure_reason: null,
    completed_at: null,
    refunds: [],
    amount_refunded: { amount: 0, currency: origin.amount.currency },
    refunded: false,
    refund_version: 0,
    amount_disputed: { amount: 0, currency: origin.amount.currency },
    dispute: null,
    created_at: now,
    updated_at: now,
  };
}

/** What the processor's answer to an initialisation sets on a charge: pending, with its authorization. */
export function initialisedFields(
  a: ProcessorAuthorization,
  at: Date,
): Pick<
  ChargeRecord,
  'status' | 'processor_reference' | 'client_secret' | 'publishable_key' | 'gateway_account_id' | 'updated_at'
> {
  return {
    status: 'pending',
    processor_reference: a.processor_reference,
    client_secret: a.client_secret ?? null,
    publishable_key: a.publishable_key ?? null,
    gateway_account_id: a.gateway_account_id ?? null,
    updated_at: at,
  };
}

/** What a repeat finds the new charge by (its reference, its Idempotency-Key) and must match (the fingerprint). */
function bindingOf(origin: ChargeOrigin): Pick<ChargeRecord, 'reference' | 'idempotency_key' | 'request_fingerprint'> {
  switch (origin.kind) {
    case 'one_time':
      return {
        reference: origin.reference,
        idempotency_key: origin.idempotency_key,
        request_fingerprint: origin.request_fingerprint,
      };
    case 'checkout':
      return { reference: origin.session_id, idempotency_key: null, request_fingerprint: '' };
    case 'off_session':
      return {
        reference: origin.idempotency_key,
        idempotency_key: origin.idempotency_key,
        request_fingerprint: origin.request_fingerprint,
      };
  }
}

/** Spec 4.1 preview response `data`, field for field (the gateway's schema flattens the Money). */
export interface ChargePreview {
  preview: true;
  payment_gateway: string;
  mode: Mode;
  is_international: boolean;
  business_country: string;
  customer_country: string;
  /** The charge's fee breakdown, in the customer's currency (spec base_amount, transaction_fee, total_charged). */
  customer: Pick<FeeBreakdown, 'base' | 'fee' | 'total'> & { pays_fees: boolean };
  /** Spec priced_amount: the charge's `total`, the merchant's priced amount. */
  business: { price: ChargeRecord['total'] };
  /** Only when the customer's currency differs from the pricing currency. */
  conversion:
    (Pick<Conversion, 'original' | 'converted'> & { exchange_rate: number; exchange_rate_decimal: string }) | null;
}

/** The preview's conversion block (spec 4.1) from the record's conversion. */
export function previewConversion(c: Conversion | null): ChargePreview['conversion'] {
  if (!c) return null;
  return { original: c.original, converted: c.converted, exchange_rate: c.rate, exchange_rate_decimal: c.rate_decimal };
}
