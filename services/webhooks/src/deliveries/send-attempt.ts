import type { DeliveryKey, DeliveryKeys, EventStore, SendResult, WebhookSender } from '../ports';
import type { WebhookEventRecord } from '../webhook-events/webhook-event';
import { claimToken } from './claim-token';
import {
  fieldsAfter,
  interruptedAttempt,
  MAX_ATTEMPTS_PER_DELIVERY,
  newDelivery,
  type AttemptOutcome,
  type AttemptRecord,
  type DeliveryRecord,
} from './delivery';
import type { DeliveryPolicy } from './delivery-policy';
import type { AttemptStore, ClaimedDelivery, Clock, DeliveryMetricsPort } from './ports';
import type { DueRetry } from './retry-timers';
import { sendSigned } from './signed-request';

/** A new delivery's first attempt: the fan-out hands over the event and key it just read. */
export interface FirstAttempt {
  event: WebhookEventRecord;
  key: DeliveryKey;
}

type AttemptPolicy = Pick<DeliveryPolicy, 'timeoutMs' | 'maxAttempts' | 'retryDelayMs' | 'allowPrivateTargets'>;

/**
 * One attempt of one delivery: sign, send, record the outcome. A claimed attempt's outcome is written
 * only while the claim is still ours; a first attempt's delivery is inserted with it (nothing about it
 * was stored before the send: see EventFanOut).
 */
export class AttemptRunner {
  constructor(
    private readonly ports: {
      deliveries: Pick<AttemptStore, 'recordFirst' | 'complete'>;
      events: Pick<EventStore, 'get'>;
      keys: Pick<DeliveryKeys, 'get'>;
      sender: WebhookSender;
      metrics?: DeliveryMetricsPort;
    },
    private readonly policy: AttemptPolicy,
    private readonly clock: Clock,
    /** The outcome recorded asks for a retry at `at`. */
    private readonly retryAt: (at: Date, retry: DueRetry) => void,
  ) {}

  /**
   * Runs the attempt; resolves once its outcome is stored (or another claim owns it now), rejects
   * when it could not be stored.
   */
  async run(
    c: ClaimedDelivery,
    first?: FirstAttempt,
    /** The receiver is done with this attempt (true: it gave an HTTP response); its slot can go. */
    answered: (responded: boolean) => void = () => undefined,
  ): Promise<void> {
    const d = c.delivery;
    const interrupted = c.interrupted ? interruptedAttempt(d.attempt_count - 1, c.interrupted.started_at) : null;
    const earlier = interrupted ? [interrupted] : [];
    // The claim counted this attempt in the round. An interrupted one before it was counted by its own
    // claim, and does not spend the round: its count is undone.
    const undoInterruptedCount = interrupted ? 1 : 0;
    const completedInRound = d.round_attempts - undoInterruptedCount;
    if (d.attempt_count > MAX_ATTEMPTS_PER_DELIVERY) {
      // The delivery has made every attempt it may (a crash loop's interrupted ones included).
      answered(false);
      await this.record(
        c,
        first !== undefined,
        {
          status: 'failed',
          next_attempt_at: this.clock.now(),
          attempt_count: d.attempt_count - 1,
          round_attempts: completedInRound - 1,
          attempts: earlier,
          last_error_class: 'attempt_limit',
        },
        this.clock.now(),
      );
      this.ports.metrics?.finished(d.event_type, 'failed', Math.max(completedInRound - 1, 0));
      return;
    }
    const [key, event] = first
      ? [first.key, first.event]
      : await Promise.all([this.ports.keys.get(d.key_id), this.ports.events.get(d.event_id)]);
    if (!key || !key.active || !key.webhook_url || key.mode !== d.mode || !event) {
      answered(false);
      // Disabled, revoked or URL removed since the event: nothing is sent (a resend after re-enabling works).
      const now = this.clock.now();
      await this.record(
        c,
        first !== undefined,
        {
          status: 'failed',
          next_attempt_at: now,
          attempt_count: d.attempt_count,
          // Nothing was sent: this claim's count is undone as well.
          round_attempts: completedInRound - 1,
          attempts: earlier,
          last_error_class: 'key_inactive',
        },
        now,
      );
      this.ports.metrics?.finished(d.event_type, 'failed', 0);
      return;
    }
    const startedAt = this.clock.now();
    const { request, result } = await sendSigned(
      this.ports.sender,
      { key, url: key.webhook_url },
      event,
      startedAt,
      this.policy,
    );
    answered(result.status !== null);
    this.ports.metrics?.attempt(request.event_type, result);
    const finishedAt = this.clock.now();
    const attempt: AttemptRecord = {
      number: d.attempt_count,
      started_at: startedAt,
      duration_ms: result.duration_ms,
      status: result.status,
      error_class: result.error_class,
      success: result.success,
      response_excerpt: result.response_excerpt,
      url: key.webhook_url,
      api_version: key.api_version,
      request_headers: request.headers,
      request_body: request.body,
    };
    const outcome = nextState(result, completedInRound, this.policy.maxAttempts);
    const nextAt = new Date(finishedAt.getTime() + this.policy.retryDelayMs);
    const recorded = await this.record(
      c,
      first !== undefined,
      {
        status: outcome,
        next_attempt_at: outcome === 'pending' ? nextAt : finishedAt,
        attempt_count: d.attempt_count,
        round_attempts: completedInRound,
        attempts: [...earlier, attempt],
        last_error_class: result.error_class,
      },
      finishedAt,
    );
    if (!recorded) return; // our lease expired and someone else owns it now: their record wins
    if (outcome === 'pending')
      this.retryAt(nextAt, { deliveryId: d.delivery_id, keyId: d.key_id, merchantId: d.merchant_id });
    else this.ports.metrics?.finished(d.event_type, outcome === 'succeeded' ? 'delivered' : 'failed', completedInRound);
  }

  /** Due work: the outcome updates the stored delivery. A first attempt: the delivery is stored with it. */
  private record(c: ClaimedDelivery, first: boolean, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    if (!first) return this.ports.deliveries.complete(c.delivery.delivery_id, c.claim_token, outcome, now);
    return this.ports.deliveries.recordFirst({
      ...c.delivery,
      ...fieldsAfter(outcome, now),
      attempts: outcome.attempts,
    });
  }
}

/**
 * A new delivery claimed by `owner` for its first attempt, before anything about it is stored: attempt
 * 1 of its first round, under a lease like any claim.
 */
export function firstAttemptClaim(
  event: WebhookEventRecord,
  key: DeliveryKey,
  owner: string,
  now: Date,
  leaseMs: number,
): ClaimedDelivery {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const token = claimToken(owner, leaseUntil);
  const delivery: DeliveryRecord = {
    ...newDelivery(event, key.key_id, now),
    status: 'delivering',
    attempt_count: 1,
    round_attempts: 1,
    next_attempt_at: leaseUntil,
    claim_token: token,
    claimed_at: now,
  };
  return { delivery, claim_token: token, interrupted: null };
}

/** Spec 6.3: any 2xx succeeds; 3 completed attempts per round; a refused target is never retried. */
export function nextState(
  result: SendResult,
  completedInRound: number,
  maxAttempts: number,
): 'succeeded' | 'failed' | 'pending' {
  if (result.success) return 'succeeded';
  if (result.error_class === 'blocked_target') return 'failed';
  return completedInRound >= maxAttempts ? 'failed' : 'pending';
}
