/** Spec 6.3 and the worker's own limits. */
export interface DeliveryPolicy {
  timeoutMs: number;
  maxAttempts: number;
  retryDelayMs: number;
  /** Sends in flight in this process, all receivers together. */
  concurrency: number;
  /** Sends in flight in this process to one key (one receiver endpoint). */
  perKeyConcurrency: number;
  /** Sends in flight in this process to one merchant's keys together (default `concurrency`). */
  perMerchantConcurrency?: number;
  /** How long a claim lives: longer than one attempt, so only a dead worker's claim expires. */
  leaseMs: number;
  /** How often an idle worker looks for work other replicas created or crashed workers left. */
  pollIntervalMs: number;
  allowPrivateTargets: boolean;
  /**
   * Shortest time between two claims while sends are in flight (default 0): each claim is a query
   * and a write, so under load a few ms of finished sends are claimed for at once, not one by one.
   */
  claimGapMs?: number;
  /** How long a new delivery's first attempt waits for a send slot (default 1 s; see SendSlots.wait). */
  slotWaitMs?: number;
  /** First attempts waiting for a send slot at most, all keys together (default `concurrency`; see SendSlots.wait). */
  maxWaiting?: number;
}

export const SPEC_POLICY: Pick<DeliveryPolicy, 'timeoutMs' | 'maxAttempts' | 'retryDelayMs'> = {
  timeoutMs: 10_000,
  maxAttempts: 3,
  retryDelayMs: 2_000,
};
