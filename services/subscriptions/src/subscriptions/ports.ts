import type { Mode, Money, OutboxEntry, SubscriptionFrequency } from '@ppay/kernel';
import type { ListQuery, SortSpec } from './list-query';
import type { MetadataValue, SubscriptionRecord } from './subscription';

/** Everything the subscriptions use cases need from outside; repo/ and adapters/ implement these. */

export interface SubscriptionRepository {
  /**
   * Inserts with its events in the outbox; when the checkout session already has a subscription,
   * returns that one instead (created: false).
   */
  insertOrGetBySession(
    rec: SubscriptionRecord,
    events: OutboxEntry[],
  ): Promise<{ subscription: SubscriptionRecord; created: boolean }>;
  findBySession(merchantId: number, mode: Mode, sessionId: string): Promise<SubscriptionRecord | null>;
  findForMerchant(merchantId: number, mode: Mode, id: string): Promise<SubscriptionRecord | null>;
  findById(id: string): Promise<SubscriptionRecord | null>;
  /**
   * Writes `next` (version + 1) and its events only while the stored version is still `next.version`
   * (and, with `lease`, while `lease.owner` holds the lease, which is extended to `lease.until`, or given
   * back with `release`); null
   * when someone else wrote first. The scheduling fields are recomputed from `next`.
   */
  save(
    next: SubscriptionRecord,
    events: OutboxEntry[],
    lease?: { owner: string; until: Date; release?: boolean },
  ): Promise<SubscriptionRecord | null>;
  /**
   * Ids of subscriptions whose next action is due by `realNow` (on their own clock) and whose lease is
   * free, earliest first. Only candidates: `claim` decides.
   */
  dueIds(realNow: Date, limit: number): Promise<string[]>;
  /**
   * Takes the lease on one subscription if it is free (and, with dueOnly, if its action is due): one
   * conditional update, so two schedulers never both hold it.
   */
  claim(
    id: string,
    realNow: Date,
    owner: string,
    leaseMs: number,
    options?: { dueOnly?: boolean },
  ): Promise<SubscriptionRecord | null>;
  /** Gives the lease back; `retryAt` keeps others off until then (e.g. payments unreachable). */
  release(id: string, owner: string, retryAt?: Date): Promise<void>;
  list(
    merchantId: number,
    mode: Mode,
    query: ListQuery,
    sort: SortSpec,
  ): Promise<{ items: SubscriptionRecord[]; total: number }>;
}

/** One record per (subscription, period) under a unique index: the audit of a period's charge attempts. */
export interface RenewalRecord {
  subscription_id: string;
  merchant_id: number;
  mode: Mode;
  period_index: number;
  period_start: Date;
  period_end: Date;
  /** Attempt number (1 = the renewal, 2… = dunning retries) → what happened. */
  attempts: Record<string, RenewalAttempt>;
  status: 'pending' | 'paid' | 'failed';
  created_at: Date;
}

export interface RenewalAttempt {
  idempotency_key: string;
  started_at: Date;
  charge_id: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  decline_code: string | null;
  finished_at: Date | null;
}

export interface RenewalRepository {
  /** Creates the period's record if absent and the attempt if absent (both idempotent). */
  startAttempt(
    period: Omit<RenewalRecord, 'attempts' | 'status' | 'created_at'>,
    attempt: number,
    idempotencyKey: string,
    at: Date,
  ): Promise<void>;
  finishAttempt(
    subscriptionId: string,
    periodStart: Date,
    attempt: number,
    outcome: Pick<RenewalAttempt, 'charge_id' | 'status' | 'decline_code' | 'finished_at'>,
  ): Promise<void>;
}

export interface OffSessionCharge {
  payment_method_id: string;
  price: Money;
  idempotency_key: string;
  product: { id: number | null; title: string; type: string };
  frequency: SubscriptionFrequency;
  metadata: Record<string, MetadataValue>;
  customer: { email: string; first_name: string; last_name: string; country: string };
  /** The sandbox helper's first payment: the customer is present (the card behaves as on the hosted page). */
  customer_present: boolean;
}

export interface ChargeOutcome {
  charge_id: string;
  status: 'succeeded' | 'failed';
  decline_code: string | null;
}

/** What subscriptions needs from payments (which owns payment methods and charges). */
export interface PaymentsPort {
  /** Idempotent by `idempotency_key`: a repeat answers the same charge. Throws when payments cannot answer. */
  /** `deadline`: the caller's (the sandbox clock's request); the client's own deadline otherwise. */
  chargeSaved(merchantId: number, mode: Mode, charge: OffSessionCharge, deadline?: Date): Promise<ChargeOutcome>;
  /** Sandbox: a test card saved without the hosted page. */
  saveTestCard(
    merchantId: number,
    mode: Mode,
    cardNumber: string,
    email: string,
  ): Promise<{ payment_method_id: string; brand: string; last4: string }>;
}
