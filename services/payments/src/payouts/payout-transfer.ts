import type { Money } from '@ppay/kernel';

/** The card gateway's platform accounts (spec 4.9 `gateway_region`): a connected account lives under one. */
export type GatewayRegion = 'US' | 'EU';

/**
 * A live connected-account payout's transfer (docs/decisions.md C23–C30):
 *   begun    → the transfer was asked for (recorded before the first call); outcome not known yet
 *   created  → the processor made it: the payout is paid
 *   refused  → the processor refused it (nothing moved): the payout failed, its reservation released
 *   reversed → made, then taken back whole by the platform: the payout failed, its debit credited back
 */
export type TransferState = 'begun' | 'created' | 'refused' | 'reversed';

export interface PayoutTransfer {
  /** The connected account paid (the destination's gateway_account_id when the transfer began). */
  account: string;
  /** The platform account the transfer is made from: fixed when it began, so a retry asks the same one. */
  region: GatewayRegion;
  /** Sent with every attempt: the processor answers a repeat with the first transfer. */
  idempotency_key: string;
  /** The processor's transfer id, once it answered. */
  transfer_reference: string | null;
  begun_at: Date;
  /** The processor's refusal (its code) or the reversal, for operators. */
  outcome_note: string | null;
}

/** What the payout asks the processor for: one transfer per payout, however often asked. */
export interface TransferRequest {
  payout_request_id: number;
  merchant_id: number;
  reference: string;
  amount: Money;
  account: string;
  region: GatewayRegion;
  idempotency_key: string;
  /** An earlier attempt may have made it (a timeout, a crash): look it up before creating. */
  asked_before: boolean;
}

/** The processor's answer; an unknown outcome (timeout, unavailable) is thrown as UPSTREAM_TIMEOUT / SERVICE_UNAVAILABLE. */
export type TransferAnswer =
  { outcome: 'created'; transfer_reference: string } | { outcome: 'refused'; reason: string };

/** The live processor of connected-account payouts (the card gateway's transfers). */
export interface PayoutTransferProcessor {
  create(request: TransferRequest): Promise<TransferAnswer>;
}

/**
 * The idempotency key of a payout's transfer, from the payout's own key (merchant, mode, reference):
 * unique per payout, and the same for every attempt.
 */
export const transferKeyOf = (p: { payout_key: string }) => `ppay_payout_${p.payout_key}_transfer`;

/** Shown as the payout's failure_reason (spec 2.10) when the processor refused the transfer. */
export const refusedReason = (code: string) => `The card gateway refused the transfer (${code})`.slice(0, 300);
export const REVERSED_REASON = 'The transfer to the connected account was reversed';
