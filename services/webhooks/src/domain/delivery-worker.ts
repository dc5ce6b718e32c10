import { randomUUID } from 'node:crypto';
import type {
  ClaimedDelivery,
  DeliveryKey,
  DeliveryKeys,
  DeliveryMetricsPort,
  DeliveryStore,
  EventStore,
  SendResult,
  WebhookSender,
} from './ports';
import { renderEvent } from './renderers';
import { signDelivery } from './signing';
import type { AttemptRecord, DeliveryRecord, WebhookEventRecord } from './webhook-event';

/** Spec 6.3 and the worker's own limits. */
export interface DeliveryPolicy {
  timeoutMs: number;
  maxAttempts: number;
  retryDelayMs: number;
  /** Sends in flight in this process, all receivers together. */
  concurrency: number;
  /** Sends in flight in this process to one key (one receiver endpoint). */
  perKeyConcurrency: number;
  /** How long a claim lives: longer than one attempt, so only a dead worker's claim expires. */
  leaseMs: number;
  /** How often an idle worker looks for work other replicas created or crashed workers left. */
  pollIntervalMs: number;
  allowPrivateTargets: boolean;
}

export const SPEC_POLICY: Pick<DeliveryPolicy, 'timeoutMs' | 'maxAttempts' | 'retryDelayMs'> = {
  timeoutMs: 10_000,
  maxAttempts: 3,
  retryDelayMs: 2_000,
};

export const USER_AGENT = 'ppay-webhooks/1.0';

export interface SignedRequest {
  event_type: string;
  body: string;
  /** Exactly the headers sent (the sender adds nothing else). */
  headers: Record<string, string>;
}

/** Renders for the key's current version and signs with its current (and, during a rotation, previous) secret. */
export function signedRequest(event: WebhookEventRecord, key: DeliveryKey, now: Date): SignedRequest {
  const rendered = renderEvent(event, key.api_version);
  const signatures = signDelivery(rendered.body, key.secrets, Math.floor(now.getTime() / 1000));
  return {
    event_type: rendered.event_type,
    body: rendered.body,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(rendered.body)),
      'user-agent': USER_AGENT,
      'x-service-event': rendered.event_type,
      'x-service-event-id': event.event_id,
      'x-service-api-version': key.api_version,
      'x-service-signature': signatures['X-Service-Signature'],
      'x-service-timestamp': signatures['X-Service-Timestamp'],
      'x-service-signature-v2': signatures['X-Service-Signature-V2'],
    },
  };
}

/**
 * Sends due deliveries. Claims are conditional updates with a lease (see DeliveryStore.claim), so
 * any number of replicas can run this and a killed one's claims come back after `leaseMs`; the
 * attempt is counted when claimed, before anything is sent. A global pool bounds the sends in
 * flight, and a per-key cap keeps one slow receiver from taking the whole pool.
 */
export class DeliveryWorker {
  readonly owner = `w_${randomUUID()}`;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly inflight = new Set<Promise<void>>();
  private readonly perKey = new Map<string, number>();
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly ports: {
      deliveries: DeliveryStore;
      events: Pick<EventStore, 'get'>;
      keys: Pick<DeliveryKeys, 'get'>;
      sender: WebhookSender;
      metrics?: DeliveryMetricsPort;
      onError?: (err: unknown) => void;
    },
    private readonly policy: DeliveryPolicy,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Stops claiming and waits for the sends in flight (their outcomes are recorded). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.loopDone;
    await Promise.all(this.inflight);
  }

  /** New work is due now (a fan-out, a resend, a slot freed). */
  wake(): void {
    const resume = this.wakeUp;
    this.wakeUp = undefined;
    if (resume) resume();
    else this.woken = true;
  }

  private wakeAt(at: Date): void {
    // A few ms late rather than early: a claim made before `next_attempt_at` finds nothing.
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.wake();
      },
      Math.max(0, at.getTime() - this.now().getTime()) + 5,
    );
    timer.unref();
    this.timers.add(timer);
  }

  private idle(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      timer.unref();
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const room = this.policy.concurrency - this.inflight.size;
      let claimed = 0;
      if (room > 0) {
        try {
          const now = this.now();
          const keyRoom = new Map<string, number>();
          for (const [key, n] of this.perKey) keyRoom.set(key, this.policy.perKeyConcurrency - n);
          const batch = await this.ports.deliveries.claim({
            now,
            owner: this.owner,
            leaseUntil: new Date(now.getTime() + this.policy.leaseMs),
            limit: room,
            keyRoom,
            perKeyLimit: this.policy.perKeyConcurrency,
          });
          claimed = batch.length;
          for (const c of batch) this.launch(c);
        } catch (err) {
          this.ports.onError?.(err);
          await this.idle(this.policy.pollIntervalMs);
          continue;
        }
      }
      // Claimed a full batch with room left: more may be due right away.
      if (claimed === 0 || claimed >= room) await this.idle(this.policy.pollIntervalMs);
    }
  }

  private launch(c: ClaimedDelivery): void {
    const key = c.delivery.key_id;
    this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
    const run = this.attempt(c)
      .catch((err: unknown) => this.ports.onError?.(err))
      .finally(() => {
        const left = (this.perKey.get(key) ?? 1) - 1;
        if (left <= 0) this.perKey.delete(key);
        else this.perKey.set(key, left);
        this.inflight.delete(run);
        this.wake();
      });
    this.inflight.add(run);
  }

  /** One attempt of one claimed delivery, then its outcome, conditional on the claim still being ours. */
  async attempt(c: ClaimedDelivery): Promise<void> {
    const d = c.delivery;
    const interrupted = c.interrupted ? interruptedAttempt(d, c.interrupted.started_at) : null;
    const earlier = interrupted ? [interrupted] : [];
    const refund = interrupted ? -1 : 0;
    const [key, event] = await Promise.all([this.ports.keys.get(d.key_id), this.ports.events.get(d.event_id)]);
    if (!key || !key.active || !key.webhook_url || key.mode !== d.mode || !event) {
      // Disabled, revoked or URL removed since the event: nothing is sent (a resend after re-enabling works).
      await this.ports.deliveries.complete(
        d.delivery_id,
        c.claim_token,
        {
          status: 'failed',
          next_attempt_at: this.now(),
          round_attempts_delta: refund - 1,
          attempts: earlier,
          last_error_class: 'key_inactive',
        },
        this.now(),
      );
      this.ports.metrics?.finished(d.event_type, 'failed', 0);
      return;
    }
    const startedAt = this.now();
    const request = signedRequest(event, key, startedAt);
    const result = await this.ports.sender.send({
      url: key.webhook_url,
      body: request.body,
      headers: request.headers,
      allowPrivateTargets: key.mode === 'sandbox' && this.policy.allowPrivateTargets,
      timeoutMs: this.policy.timeoutMs,
    });
    this.ports.metrics?.attempt(request.event_type, result);
    const finishedAt = this.now();
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
    const completedInRound = d.round_attempts + refund;
    const outcome = nextState(result, completedInRound, this.policy.maxAttempts);
    const nextAt = new Date(finishedAt.getTime() + this.policy.retryDelayMs);
    const recorded = await this.ports.deliveries.complete(
      d.delivery_id,
      c.claim_token,
      {
        status: outcome,
        next_attempt_at: outcome === 'pending' ? nextAt : finishedAt,
        round_attempts_delta: refund,
        attempts: [...earlier, attempt],
        last_error_class: result.error_class,
      },
      finishedAt,
    );
    if (!recorded) return; // our lease expired and someone else owns it now: their record wins
    if (outcome === 'pending') this.wakeAt(nextAt);
    else this.ports.metrics?.finished(d.event_type, outcome === 'succeeded' ? 'delivered' : 'failed', completedInRound);
  }
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

function interruptedAttempt(d: DeliveryRecord, startedAt: Date): AttemptRecord {
  return {
    number: d.attempt_count - 1,
    started_at: startedAt,
    duration_ms: null,
    status: null,
    error_class: 'interrupted',
    success: false,
    response_excerpt: '',
    url: '',
    api_version: '',
    request_headers: {},
    request_body: '',
  };
}
