import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { PayoutRecord } from './payout';
import type { GatewayRegion } from './payout-transfer';

/** The fields a payout's conditional write may expect (null matches a document without the field). */
export type PayoutExpectation = Partial<
  Pick<PayoutRecord, 'request_status' | 'withdrawal_status' | 'reservation'> & {
    transfer_state: PayoutRecord['transfer_state'];
  }
>;

/** Staged payout requests (`payouts`, `_id` = merchant:mode:reference). */
export interface PayoutRepository {
  nextId(): Promise<number>;
  /** false when the (merchant, mode, reference) key is taken. */
  insert(payout: PayoutRecord): Promise<boolean>;
  get(merchantId: number, mode: Mode, reference: string): Promise<PayoutRecord | null>;
  /**
   * One conditional write: when the payout matches `expect`, applies `set` and adds `events` to its
   * outbox; null when it no longer matches (someone else moved it first).
   */
  transition(
    key: PayoutRecord['payout_key'],
    expect: PayoutExpectation,
    set: Partial<PayoutRecord>,
    events: OutboxEntry[],
  ): Promise<PayoutRecord | null>;
  /** Removes a payout whose reservation never happened (insufficient balance); false if it moved on. */
  discardUnreserved(key: string): Promise<boolean>;
  /** Payouts whose wallet step is unfinished (reservation pending, releasing, settling or returning). */
  unfinished(limit: number): Promise<PayoutRecord[]>;
  /** Live connected-account payouts whose transfer was begun and not answered (C25), oldest change first. */
  transfersBegun(limit: number): Promise<PayoutRecord[]>;
}

/** The payout account as it is now (kyc's, the source of truth), for the payout's approval and settlement. */
export type CurrentDestination =
  | {
      found: true;
      kyc_status: string;
      fingerprint: string | null;
      /** The connected account's platform account (kyc's case); null for a bank account or an older kyc. */
      gateway_region?: GatewayRegion | null;
    }
  /** No case, no payout set-up or no account any more (detached by a resubmission, deleted). */
  | { found: false; why: 'KYC_NOT_SUBMITTED' | 'PAYOUT_NOT_SET_UP' | 'PAYOUT_ACCOUNT_NOT_FOUND' };

export interface PayoutDestinations {
  current(merchantId: number, mode: Mode): Promise<CurrentDestination>;
}
