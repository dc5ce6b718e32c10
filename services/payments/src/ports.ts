import type { Mode, Money, OutboxEntry } from '@ppay/kernel';
import type { CardPayment, CardResult, TestCard, ValidCard } from './processors/cards';
import type { ChargeRecord, ChargeStatus, RefundRecord } from './charges/charge';
import type { LedgerEntry } from './wallets/ledger-entry';
import type { WalletBalanceEntry, WalletEffect, WalletRecord } from './wallets/wallet';
import type { PayoutRecord } from './payouts/payout';
import type { ProcessorGroup } from './processors/processors';
import type { AttemptChange, SessionRecord } from './checkout/session';
import type { PaymentMethodRecord, SavedCard } from './payment-methods/payment-method';

/**
 * Everything the payments use cases need from the outside world, in one place. Adapters implement
 * these (repo/ with mongoose, adapters/ with gRPC clients and sandbox processors); unit tests use
 * in-memory versions.
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

export interface FxQuote {
  result: Money;
  rate: number;
  rate_decimal: string;
  source: string;
  surcharge_percent: number;
}

export interface FxConverter {
  /** CONVERSION_FAILED when no rate exists between the currencies; an outage stays a 5xx. */
  convert(from: Money, toCurrency: string, mode: Mode, deadline?: Date): Promise<FxQuote>;
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

/** A payment for a processor to initialise (spec 2.2: what the embedded form or redirect needs). */
export interface PaymentIntent {
  charge_id: string;
  merchant_id: number;
  mode: Mode;
  amount: Money;
  customer_email: string;
  description: string;
  callback_url: string;
}

/** What a processor hands back when a payment is initialised (spec 2.2 fields by route). */
export interface ProcessorAuthorization {
  processor_reference: string;
  client_secret?: string;
  publishable_key?: string;
  gateway_account_id?: string;
}

export interface ProcessorAdapter {
  /** Spec 2.2 `payment_gateway`. */
  readonly id: string;
  readonly mode: Mode;
  /**
   * Asks the processor to set the payment up. `intent.charge_id` is the processor's idempotency key:
   * asking twice for one charge never creates two payments. SERVICE_UNAVAILABLE means nothing was
   * created; UPSTREAM_TIMEOUT means the outcome is unknown.
   */
  initialise(intent: PaymentIntent): Promise<ProcessorAuthorization>;
  /**
   * Refunds part or all of a captured payment. `refund_id` is the processor's idempotency key: asking
   * twice for one refund never refunds twice. A decline is an answer (`failed`); SERVICE_UNAVAILABLE
   * means nothing happened this time; UPSTREAM_TIMEOUT means the outcome is unknown.
   */
  refund(request: RefundIntent): Promise<RefundAnswer>;
}

export interface RefundIntent {
  refund_id: string;
  charge_id: string;
  merchant_id: number;
  mode: Mode;
  processor_reference: string | null;
  amount: Money;
  reason: string | null;
}

export type RefundAnswer =
  { status: 'succeeded'; processor_reference: string } | { status: 'failed'; failure_reason: string };

export interface ProcessorRegistry {
  /** Sandbox callers always get sandbox adapters; live callers get live adapters or GATEWAY_NOT_CONFIGURED. */
  adapterFor(group: ProcessorGroup, mode: Mode): ProcessorAdapter;
}

/** Authorises a card payment on a session (sandbox: deterministic test cards). */
export interface CheckoutProcessor {
  testCards(mode: Mode): TestCard[];
  authorise(payment: CardPayment, card: ValidCard): Promise<CardResult>;
  /** What is kept of a card approved on a subscription checkout, to charge it again off-session. */
  saveCard(card: ValidCard): SavedCard;
  /** Sandbox helper: a test card saved without a checkout; VALIDATION_FAILED for any other number or a declining card. */
  saveTestCard(cardNumber: string): SavedCard;
  /** Charges a saved card without the customer (renewals). */
  chargeSaved(payment: CardPayment, card: SavedCard, options: { customerPresent: boolean }): Promise<CardResult>;
}

export interface PaymentMethodRepository {
  /** Inserts; when the session already saved a method returns that one (a retried attempt). */
  insertOrGetBySession(method: PaymentMethodRecord): Promise<PaymentMethodRecord>;
  insert(method: PaymentMethodRecord): Promise<void>;
  findForMerchant(merchantId: number, mode: Mode, paymentMethodId: string): Promise<PaymentMethodRecord | null>;
}

export interface ProductLookup {
  /** PRODUCT_NOT_FOUND when the merchant has no such product. */
  product(merchantId: number, mode: Mode, productId: number, currency: string): Promise<{ name: string; type: string }>;
}

/** Which existing charge a request is bound to: its Idempotency-Key, else its reference. */
export interface ChargeKeys {
  idempotencyKey: string | null;
  reference: string | null;
}

export interface ChargeRepository {
  /** Inserts the charge; false when its Idempotency-Key or reference is taken (unique per merchant and mode). */
  insert(charge: ChargeRecord): Promise<boolean>;
  /** The charge bound to the Idempotency-Key, else to the reference. */
  findByKeys(merchantId: number, mode: Mode, keys: ChargeKeys): Promise<ChargeRecord | null>;
  findForMerchant(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord | null>;
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
    change: { refunds: RefundRecord[]; amount_refunded: number; refunded: boolean },
    event: OutboxEntry | null,
    now: Date,
  ): Promise<ChargeRecord | null>;
  /** Charges holding a refund still pending since before `staleBefore` (the refund sweep). */
  withStalePendingRefunds(staleBefore: Date, limit: number): Promise<ChargeRecord[]>;
  /** pending → final status with the event in the same write; null when the charge is no longer pending. */
  complete(
    chargeId: string,
    status: Extract<ChargeStatus, 'succeeded' | 'failed'>,
    failureReason: string | null,
    completedAt: Date,
    event: OutboxEntry,
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
  /** CAS pending → expired for one session past its expiry with no attempt in progress. */
  expire(sessionId: string, now: Date): Promise<void>;
  /** The sweeper: every pending session past expires_at → expired. Returns how many. */
  expireDue(now: Date, staleBefore: Date): Promise<number>;
  /** Paid sessions completed before `before` whose wallet credits nobody has checked yet (oldest first). */
  dueForLedgerCheck(before: Date, limit: number): Promise<SessionRecord[]>;
  markLedgerChecked(sessionId: string, at: Date): Promise<void>;
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

/** The append-only ledger entries (`ledger_entries`), each with its applied-to-wallet mark. */
export interface LedgerEntryStore {
  /** Inserts the entry with its wallet.* event; false when the idempotency key is taken. */
  insert(entry: LedgerEntry): Promise<boolean>;
  get(entryId: string): Promise<LedgerEntry | null>;
  /** The wallet seq at which the entry was applied, or null while it is not marked. */
  appliedSeq(entryId: string): Promise<number | null>;
  /** Sets the mark (idempotent: an entry is applied at exactly one seq). */
  markApplied(entryId: string, walletId: string, seq: number): Promise<void>;
  /** Entries without a mark (crashed before applying, or written before wallets existed). */
  unapplied(limit: number): Promise<LedgerEntry[]>;
  hasEntriesFor(chargeId: string): Promise<boolean>;
  /** Every entry written for this charge (refunds reverse its credits). */
  entriesForCharge(chargeId: string): Promise<LedgerEntry[]>;
  /** Sums over the wallet's marked entries (the reconciler). */
  appliedTotals(walletId: string): Promise<{ total_credits: number; total_debits: number; transaction_count: number }>;
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
