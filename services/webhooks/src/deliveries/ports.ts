import type { SendResult } from '../ports';
import type { AttemptOutcome, DeliveryRecord } from './delivery';

/** Where the delivery worker records attempts: first attempts' deliveries, claims of due work, outcomes. */
export interface AttemptStore {
  /**
   * Inserts a new delivery as it stands after its first attempt (sent before anything was stored),
   * with a due entry when it is unfinished; false (nothing written) when it is stored already.
   */
  recordFirst(delivery: DeliveryRecord): Promise<boolean>;
  /** Claims due deliveries (pending and due, or delivering with an expired lease), counting the attempt. */
  claim(options: ClaimOptions): Promise<ClaimedDelivery[]>;
  /** Claims this delivery if it is due, like `claim`; null when it is not due or someone else has it. */
  claimOne(
    deliveryId: string,
    options: Pick<ClaimOptions, 'now' | 'owner' | 'leaseUntil'>,
  ): Promise<ClaimedDelivery | null>;
  /** Records an attempt's outcome, only while the claim is still ours. */
  complete(deliveryId: string, claimToken: string, outcome: AttemptOutcome, now: Date): Promise<boolean>;
  /** Deliveries waiting for an attempt or being sent. */
  pendingCount(): Promise<number>;
}

export interface ClaimOptions {
  now: Date;
  owner: string;
  leaseUntil: Date;
  limit: number;
  /** How many more deliveries each busy key may take (0 = none); keys not listed take up to `perKeyLimit`. */
  keyRoom: ReadonlyMap<string, number>;
  perKeyLimit: number;
  /** The same per merchant (all its keys together); merchants not listed take up to `perMerchantLimit`. */
  merchantRoom: ReadonlyMap<number, number>;
  perMerchantLimit: number;
}

export interface ClaimedDelivery {
  delivery: DeliveryRecord;
  /** The claim this one replaced had expired mid-attempt (a crashed or killed worker). */
  interrupted: { started_at: Date } | null;
  claim_token: string;
}

export interface DeliveryMetricsPort {
  attempt(eventType: string, result: SendResult): void;
  finished(eventType: string, outcome: 'delivered' | 'failed', attempts: number): void;
  /** How a new delivery's first attempt got its send slot: at once, after a wait, or none (stored as due work). */
  firstAttempt(path: 'at_once' | 'after_wait' | 'stored'): void;
}

/**
 * Time as the delivery worker reads it: the current time, and timers. Injected, so that tests move
 * it themselves through slot waits, retries and polls.
 */
export interface Clock {
  now(): Date;
  /** Calls `fn` once, `ms` from now, without keeping the process alive; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}
