import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { ChargeRecord, ChargeStatus } from './charges/charge';
import type { AttemptChange, ProcessorClose, SessionRecord } from './checkout/session';
import type { ProcessorAuthorization } from './processors/ports';
import type { LedgerEntry } from './wallets/ledger-entry';
import type { WalletBalanceEntry, WalletEffect, WalletRecord } from './wallets/wallet';

/**
 * The ports several subdomains share (a port only one subdomain uses is in that subdomain's
 * ports.ts). Adapters implement them (`*.repo.ts` with mongoose, `*.adapter.ts` with gRPC clients);
 * unit tests use the in-memory versions of memory-ports.test-util.ts.
 */

/** What payments knows about a merchant (a projection of marketplace's merchants.* events). */
export interface MerchantProfile {
  merchant_id: number;
  country: string;
  baseline_currency: string;
  customer_pays_fees: boolean;
  is_marketplace_operator: boolean;
  /** Shown on the hosted checkout page; empty until marketplace publishes it. */
  business_name: string;
}

export interface MerchantDirectory {
  /** MERCHANT_NOT_FOUND when the merchant is unknown. */
  get(merchantId: number): Promise<MerchantProfile>;
}

export interface SplitTerms {
  active: boolean;
  commission_rate: string;
  commission_source: string;
}

export interface SplitResolver {
  /** In the mode of the charge: a sandbox relationship never splits a live payment, nor the reverse. */
  resolve(operatorMerchantId: number, subMerchantId: number, mode: Mode, deadline?: Date): Promise<SplitTerms>;
}

/** Which existing charge a request is bound to: its Idempotency-Key, else its reference. */
export interface ChargeKeys {
  idempotencyKey: string | null;
  reference: string | null;
}

/** A charge's refunds and the totals derived from them: what every refund change writes. */
export type RefundsChange = Pick<ChargeRecord, 'refunds' | 'amount_refunded' | 'refunded'>;

/** A charge's dispute hold and the amount it holds: what every dispute change of the charge writes. */
export type DisputeHoldChange = Pick<ChargeRecord, 'dispute' | 'amount_disputed'>;

/** GET /payments/charges: newest first, after the cursor (list-pages.ts). */
export interface ChargeListQuery {
  status?: ChargeStatus;
  reference?: string;
  from?: Date;
  to?: Date;
  /** Only charges listed after this key (the previous page's last). */
  after?: string;
  limit: number;
}

export interface ChargeRepository {
  /** Inserts the charge; false when its Idempotency-Key or reference is taken (unique per merchant and mode). */
  insert(charge: ChargeRecord): Promise<boolean>;
  /** The charge bound to the Idempotency-Key, else to the reference. */
  findByKeys(merchantId: number, mode: Mode, keys: ChargeKeys): Promise<ChargeRecord | null>;
  findForMerchant(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord | null>;
  /**
   * The live charge whose processor's payment is `reference` (a processor's dispute names only that);
   * null when none is (yet). One payment per charge: the processor made it under the charge's key.
   */
  findLiveByProcessorReference(reference: string): Promise<ChargeRecord | null>;
  listForMerchant(merchantId: number, mode: Mode, query: ChargeListQuery): Promise<ChargeRecord[]>;
  /**
   * failed with a retryable reason, or initializing since before `staleBefore` → initializing again
   * (attempts + 1); null when the charge is in any other state (someone else got there first).
   */
  retryInitialisation(chargeId: string, staleBefore: Date, now: Date): Promise<ChargeRecord | null>;
  /**
   * Off-session charges: a pending charge untouched since `staleBefore` (its caller crashed or timed out)
   * is claimed for a repeat of the processor call (attempts + 1, updated_at now); null when it is not.
   */
  reclaimPending(chargeId: string, staleBefore: Date, now: Date): Promise<ChargeRecord | null>;
  /** Frees the reference of a charge that failed for good, so a new charge may take it. */
  releaseReference(chargeId: string, reference: string): Promise<boolean>;
  /** Sets the processor authorization on an initializing charge (status → pending); null when it no longer is. */
  markInitialised(chargeId: string, authorization: ProcessorAuthorization): Promise<ChargeRecord | null>;
  markFailed(chargeId: string, reason: string): Promise<void>;
  /** The sweeper: initializing charges untouched since `staleBefore` → failed `abandoned`. */
  abandonStale(staleBefore: Date, now: Date): Promise<number>;
  /** Succeeded charges completed before `before` whose wallet credits nobody has checked yet (oldest first). */
  dueForLedgerCheck(before: Date, limit: number): Promise<ChargeRecord[]>;
  markLedgerChecked(chargeId: string, at: Date): Promise<void>;
  /**
   * Replaces the charge's refunds (and the totals derived from them) if `refund_version` is still
   * `expectedVersion`, adding `event` to its outbox in the same write; null when someone else changed
   * the refunds first. The one write behind every refund change: the refund cap is this condition.
   */
  writeRefunds(
    chargeId: string,
    expectedVersion: number,
    change: RefundsChange,
    event: OutboxEntry | null,
    now: Date,
  ): Promise<ChargeRecord | null>;
  /**
   * Sets the charge's dispute hold if `refund_version` is still `expectedVersion` (refunds and the
   * dispute share one cap, so they share the version); null when someone changed either first.
   */
  writeDisputeHold(
    chargeId: string,
    expectedVersion: number,
    change: DisputeHoldChange,
    now: Date,
  ): Promise<ChargeRecord | null>;
  /** Charges holding a refund still pending since before `staleBefore` (the refund sweep). */
  withStalePendingRefunds(staleBefore: Date, limit: number): Promise<ChargeRecord[]>;
  /**
   * pending → final status with the event in the same write; null when the charge is no longer pending.
   * `processorReference`, when given, records the processor's id of the payment in that write (an
   * off-session charge learns it only from the answer that completes it); null keeps the one recorded.
   */
  complete(
    chargeId: string,
    status: Extract<ChargeStatus, 'succeeded' | 'failed'>,
    failureReason: string | null,
    completedAt: Date,
    event: OutboxEntry,
    processorReference?: string | null,
  ): Promise<ChargeRecord | null>;
}

export interface SessionRepository {
  /** Inserts; when the merchant's idempotency key is taken returns the session that holds it. */
  /** `events` go into the new session's outbox in the same insert. */
  insertOrGetByIdempotencyKey(
    session: SessionRecord,
    events?: OutboxEntry[],
  ): Promise<{ session: SessionRecord; created: boolean }>;
  findById(sessionId: string): Promise<SessionRecord | null>;
  findForMerchant(sessionId: string, merchantId: number, mode: Mode): Promise<SessionRecord | null>;
  /** The merchant's session created with this Idempotency-Key in this mode, if any. */
  findByIdempotencyKey(merchantId: number, mode: Mode, idempotencyKey: string): Promise<SessionRecord | null>;
  /** pending, not past expires_at, no live attempt (or a stale one) → claims the attempt. */
  claimAttempt(sessionId: string, attemptId: string, now: Date, staleBefore: Date): Promise<SessionRecord | null>;
  releaseAttempt(sessionId: string, attemptId: string): Promise<void>;
  /** Ends the claimed attempt: state change, attempt record and event in one write. */
  finishAttempt(
    sessionId: string,
    attemptId: string,
    change: AttemptChange,
    events: OutboxEntry[],
  ): Promise<SessionRecord | null>;
  /**
   * A live session closed by its processor, in one write with `events`: completed with its payment
   * (from pending, or from expired by our clock: the processor took the money before its own expiry),
   * or expired (from pending). Null when the session was in neither state (already closed).
   */
  closeFromProcessor(sessionId: string, change: ProcessorClose, events: OutboxEntry[]): Promise<SessionRecord | null>;
  /**
   * A live session made before its processor's (gateway_session_id ''), under the attempt claim
   * `attemptId`: records the processor's session, its units now `held`, and gives the claim back, in
   * one write. Null when the claim is no longer ours or the session was opened already.
   */
  openAtProcessor(
    sessionId: string,
    attemptId: string,
    opened: Pick<SessionRecord, 'gateway_session_id' | 'payment_url' | 'expires_at'>,
    now: Date,
  ): Promise<SessionRecord | null>;
  /** Deletes a live session never opened at its processor, iff it still is and `attemptId` claims it. */
  discardUnopened(sessionId: string, attemptId: string): Promise<void>;
  /** Live sessions whose units are still `held` though they expired before `before` (the lost-event net). */
  heldPastExpiry(before: Date, limit: number): Promise<SessionRecord[]>;
  /** CAS pending → expired for one session past its expiry with no attempt in progress. */
  expire(sessionId: string, now: Date): Promise<void>;
  /** The sweeper: every pending session past expires_at → expired. Returns how many. */
  expireDue(now: Date, staleBefore: Date): Promise<number>;
  /** Paid sessions completed before `before` whose wallet credits nobody has checked yet (oldest first). */
  dueForLedgerCheck(before: Date, limit: number): Promise<SessionRecord[]>;
  markLedgerChecked(sessionId: string, at: Date): Promise<void>;
  /**
   * Sessions whose stock hold must end: paid (`commit`), declined (`release`), or `open` on a session
   * that can no longer pay.
   */
  withStockToSettle(limit: number): Promise<SessionRecord[]>;
  /** stock_state → `to` (settled, or open again after a declined card's release) iff it is still `from`. */
  markStockSettled(sessionId: string, from: 'open' | 'release' | 'commit', to?: 'settled' | 'open'): Promise<void>;
}

export interface LedgerRepository {
  /**
   * Appends entries and applies each to its wallet exactly once (implemented by `WalletLedger`);
   * returns those that were new (the rest already existed by idempotency key, and are re-applied
   * only if a crash left them unapplied).
   */
  append(entries: LedgerEntry[]): Promise<{ inserted: LedgerEntry[]; duplicates: number }>;
  /** One wallet read per currency: O(1) in the length of the merchant's history. */
  balances(merchantId: number, mode: Mode): Promise<WalletBalanceEntry[]>;
  /** Whether any entry was written for this charge (the reconciler's question). */
  hasEntriesFor(chargeId: string): Promise<boolean>;
  /** Every entry written for this charge (refunds reverse its credits). */
  entriesForCharge(chargeId: string): Promise<LedgerEntry[]>;
}

/** Wallet documents (`wallets`, `_id` = merchant:mode:currency). */
export interface WalletStore {
  get(walletId: string): Promise<WalletRecord | null>;
  /** Creates the wallet (seq 0, zero totals) if it does not exist, and returns it. */
  ensure(merchantId: number, mode: Mode, currency: string): Promise<WalletRecord>;
  /** All of a merchant's wallets in one mode, by currency. */
  listFor(merchantId: number, mode: Mode): Promise<WalletRecord[]>;
  /** Wallets after `afterId` in id order (the reconciler's scan). */
  page(afterId: string | null, limit: number): Promise<WalletRecord[]>;
  /** Applies `effect` iff the wallet is still at `expectedSeq` (seq + 1, last_entry_id = entryId); false otherwise. */
  applyAt(walletId: string, expectedSeq: number, entryId: string, effect: WalletEffect, now: Date): Promise<boolean>;
  /**
   * available -= amount, reserved += amount, reservations[key] = amount, iff available ≥ amount and the
   * key is not held yet. `exists` when the key is already held (a repeat), with the amount it holds.
   */
  reserve(
    walletId: string,
    key: string,
    amount: number,
    now: Date,
  ): Promise<{ outcome: 'reserved' } | { outcome: 'exists'; amount: number } | { outcome: 'insufficient' }>;
  /** Gives a held reservation back to available; false when it is not held (already released or settled). */
  release(walletId: string, key: string, amount: number, now: Date): Promise<boolean>;
}
