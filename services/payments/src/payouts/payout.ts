import { outboxEvent, SUBJECTS, type Mode, type Money, type OutboxEntry } from '@ppay/kernel';
import { newLedgerEntry, type LedgerEntry } from '../wallets/ledger-entry';
import type { PayoutTransfer, TransferState } from './payout-transfer';

/**
 * Where the payout's wallet step stands. Every state but `held`, `released` and `settled` is a step
 * begun and not yet confirmed; the payout sweep finishes it (each step is idempotent on the wallet).
 *   pending   → reserve (held) or, without the money, discard the request
 *   releasing → give the reservation back (released): rejected or failed
 *   settling  → append the final payout debit, which consumes the reservation (settled): paid
 *   returning → credit a paid payout's debit back (returned): its transfer was reversed (C27)
 */
export type ReservationState =
  'pending' | 'held' | 'releasing' | 'released' | 'settling' | 'settled' | 'returning' | 'returned';

export type RequestStatus = 'pending' | 'approved' | 'rejected';
export type WithdrawalStatus = 'payout_pending' | 'paid' | 'failed';

/**
 * Where a payout pays: the payout account as kyc answered it when the payout was requested (masked; the
 * clear number stays sealed in kyc). Approval and settlement go ahead only while the account still has
 * this fingerprint and KYC is still approved (Hardening 2 item 5).
 */
export interface PayoutDestination {
  kind: 'bank_account' | 'connected_account';
  bank_name: string | null;
  institution_id: string | null;
  account_number_masked: string | null;
  account_name: string | null;
  gateway_account_id: string | null;
  /** Null for an account kyc stored before fingerprints (the first change gives it one). */
  fingerprint: string | null;
}

/** Spec 2.10 staged payout request, with its withdrawal (one per approved request). */
export interface PayoutRecord {
  /** `merchant:mode:reference`: the document id, so every lookup is one indexed key. */
  payout_key: string;
  payout_request_id: number;
  /** Set on approval; the withdrawal shares the request's number (one withdrawal per request). */
  withdrawal_id: number | null;
  merchant_id: number;
  mode: Mode;
  /** The operator whose marketplace the sub-merchant belonged to when it asked. */
  marketplace_id: number;
  reference: string;
  amount: Money;
  payment_gateway: string;
  payout_method: string;
  /** Null on requests made before destinations were recorded (they cannot be approved or paid). */
  destination: PayoutDestination | null;
  request_status: RequestStatus;
  withdrawal_status: WithdrawalStatus | null;
  reservation: ReservationState;
  approved_at: Date | null;
  rejected_at: Date | null;
  rejection_reason: string | null;
  paid_at: Date | null;
  failed_at: Date | null;
  failure_reason: string | null;
  /**
   * A live connected-account payout's Stripe Transfer (payout-transfer.ts): null until its settlement
   * as paid begins one. Top level so one conditional write can expect it; absent on older documents.
   */
  transfer_state?: TransferState | null;
  transfer?: PayoutTransfer | null;
  created_at: Date;
  updated_at: Date;
}

/** What marketplace established before asking (relationship, KYC, payout account). */
export interface PayoutRequestInput {
  amount: Money;
  reference: string;
  marketplace_id: number;
  payment_gateway: string;
  payout_method: string;
  /** Null only from a marketplace of the previous version (such a request cannot be approved). */
  destination: PayoutDestination | null;
}

/** A new payout request: pending, its reservation not made yet. */
export function newPayout(
  id: number,
  merchantId: number,
  mode: Mode,
  input: PayoutRequestInput,
  now: Date,
): PayoutRecord {
  return {
    payout_key: payoutKeyOf(merchantId, mode, input.reference),
    payout_request_id: id,
    withdrawal_id: null,
    merchant_id: merchantId,
    mode,
    marketplace_id: input.marketplace_id,
    reference: input.reference,
    amount: input.amount,
    payment_gateway: input.payment_gateway,
    payout_method: input.payout_method,
    destination: input.destination,
    request_status: 'pending',
    withdrawal_status: null,
    reservation: 'pending',
    approved_at: null,
    rejected_at: null,
    rejection_reason: null,
    paid_at: null,
    failed_at: null,
    failure_reason: null,
    transfer_state: null,
    transfer: null,
    created_at: now,
    updated_at: now,
  };
}

export function payoutKeyOf(merchantId: number, mode: Mode, reference: string): string {
  return `${merchantId}:${mode}:${reference}`;
}

/** The wallet reservation of a payout (a field name: digits only, never the partner's reference). */
export function reservationKeyOf(payout: Pick<PayoutRecord, 'payout_request_id'>): string {
  return `p${payout.payout_request_id}`;
}

/** Spec 2.10 resource (ppay.payments.v1.Payout): what the partner sees of the record. */
export function payoutResource(p: PayoutRecord) {
  return {
    payout_request_id: p.payout_request_id,
    withdrawal_id: p.withdrawal_id,
    merchant_id: p.merchant_id,
    reference: p.reference,
    amount: p.amount,
    request_status: p.request_status,
    withdrawal_status: p.withdrawal_status,
    payment_gateway: p.payment_gateway,
    payout_method: p.payout_method,
    destination: p.destination,
    approved_at: p.approved_at,
    rejected_at: p.rejected_at,
    rejection_reason: p.rejection_reason,
    paid_at: p.paid_at,
    failed_at: p.failed_at,
    failure_reason: p.failure_reason,
    created_at: p.created_at,
    /** The reject answer's name for request_status (spec 4.10). */
    status: p.request_status,
  };
}

const SETTLEMENT_SUBJECTS = {
  requested: SUBJECTS.settlementRequested,
  approved: SUBJECTS.settlementApproved,
  rejected: SUBJECTS.settlementRejected,
  paid: SUBJECTS.settlementPaid,
  failed: SUBJECTS.settlementFailed,
} as const;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** settlement.* for the payout as it is after the change (written in the same update). */
export function settlementEvent(kind: keyof typeof SETTLEMENT_SUBJECTS, p: PayoutRecord): OutboxEntry {
  return outboxEvent(
    SETTLEMENT_SUBJECTS[kind],
    {
      payout_request_id: p.payout_request_id,
      withdrawal_id: p.withdrawal_id,
      merchant_id: p.merchant_id,
      marketplace_id: p.marketplace_id,
      reference: p.reference,
      amount: p.amount,
      request_status: p.request_status,
      withdrawal_status: p.withdrawal_status,
      payment_gateway: p.payment_gateway,
      payout_method: p.payout_method,
      approved_at: iso(p.approved_at),
      rejected_at: iso(p.rejected_at),
      rejection_reason: p.rejection_reason,
      paid_at: iso(p.paid_at),
      failed_at: iso(p.failed_at),
      failure_reason: p.failure_reason,
      created_at: p.created_at.toISOString(),
    },
    { merchantId: p.merchant_id, mode: p.mode },
  );
}

/** The final debit of a paid payout (wallet.debited): consumes the reservation, once per payout. */
export function payoutDebit(p: PayoutRecord, now: Date): LedgerEntry {
  return newLedgerEntry(
    {
      idempotency_key: `payout:${p.payout_request_id}`,
      merchant_id: p.merchant_id,
      mode: p.mode,
      kind: 'debit',
      reason: 'payout',
      amount: p.amount,
      reservation_key: reservationKeyOf(p),
      charge_id: '',
      event_id: `payout:${p.payout_request_id}`,
    },
    now,
  );
}

/**
 * The credit that gives a reversed payout's money back to the wallet (C27): the debit's amount, once
 * per payout (its key), into `available`.
 */
export function payoutReturn(p: PayoutRecord, now: Date): LedgerEntry {
  return newLedgerEntry(
    {
      idempotency_key: `payout_reversal:${p.payout_request_id}`,
      merchant_id: p.merchant_id,
      mode: p.mode,
      kind: 'credit',
      reason: 'payout_reversal',
      amount: p.amount,
      charge_id: '',
      event_id: `payout_reversal:${p.payout_request_id}`,
    },
    now,
  );
}
