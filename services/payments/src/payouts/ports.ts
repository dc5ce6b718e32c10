import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { PayoutRecord } from './payout';

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
    expect: Partial<Pick<PayoutRecord, 'request_status' | 'withdrawal_status' | 'reservation'>>,
    set: Partial<PayoutRecord>,
    events: OutboxEntry[],
  ): Promise<PayoutRecord | null>;
  /** Removes a payout whose reservation never happened (insufficient balance); false if it moved on. */
  discardUnreserved(key: string): Promise<boolean>;
  /** Payouts whose wallet step is unfinished (reservation pending, releasing or settling). */
  unfinished(limit: number): Promise<PayoutRecord[]>;
}
