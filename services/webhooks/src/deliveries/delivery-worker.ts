import { randomUUID } from 'node:crypto';
import type { AttemptOutcome } from './delivery';
import type { AttemptStore, ClaimedDelivery, DeliveryMetricsPort } from './ports';
import type { DeliveryKey, DeliveryKeys, EventStore, SendResult, WebhookSender } from '../ports';
import { RecentResponses } from './recent-responses';
import { renderEvent } from '../webhook-events/renderers';
import { signDelivery } from './signing';
import { interruptedAttempt, newDelivery, type AttemptRecord, type DeliveryRecord } from './delivery';
import { type WebhookEventRecord } from '../webhook-events/webhook-event';

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
  /**
   * Shortest time between two claims while sends are in flight (default 0): each claim is a query
   * and a write, so under load a few ms of finished sends are claimed for at once, not one by one.
   */
  claimGapMs?: number;
  /** How long a new delivery's first attempt waits for a send slot (default 1 s; see `acquire`). */
  slotWaitMs?: number;
  /** First attempts waiting for a send slot at most, all keys together (default `concurrency`; see `acquire`). */
  maxWaiting?: number;
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
 * Sends deliveries. New ones are sent at once when a slot is free (`acquire`, `sendFirst`: nothing is
 * written before that send; see EventFanOut). Due work (retries, resends, deliveries that found no
 * slot) is claimed: claims are conditional updates with a lease (see DeliveryStore.claim), so any
 * number of replicas can run this and a killed one's claims come back after `leaseMs`; such an
 * attempt is counted when claimed, before anything is sent. A global pool bounds the sends in flight,
 * and a per-key cap keeps one slow receiver from taking the whole pool.
 */
export class DeliveryWorker {
  readonly owner = `w_${randomUUID()}`;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  /** Attempts not finished yet (sent or not), which `stop` waits for. */
  private readonly inflight = new Set<Promise<void>>();
  /** Attempts whose receiver has not answered yet: these hold a slot of the pool (see `launch`). */
  private sending = 0;
  /**
   * Claimed attempts (not first attempts) not finished yet, outcome written or not: at most the pool's
   * size, so claims never run ahead of the outcomes' writes.
   */
  private claimedInFlight = 0;
  private readonly perKey = new Map<string, number>();
  /** Slots promised to the fan-out (see `acquire`), counted like sends in flight. */
  private reserved = 0;
  /** First attempts waiting for a slot (see `acquire`), oldest first. */
  private readonly waiters: SlotWaiter[] = [];
  private wakeUp: (() => void) | undefined;
  /** Retries this worker scheduled whose time came, waiting for a slot, oldest first (see `retryDue`). */
  private readonly readyRetries: { deliveryId: string; keyId: string }[] = [];
  /** Whether the last claim found work (or new work was announced since): see `slotFreed`. */
  private lastClaimFound = true;
  private woken = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Since when each key has had sends in flight without a break (see `mayWait`). */
  private readonly busySince = new Map<string, number>();
  /** HTTP responses per key lately (see `mayWait`). */
  private readonly responses: RecentResponses;

  constructor(
    private readonly ports: {
      deliveries: AttemptStore;
      events: Pick<EventStore, 'get'>;
      keys: Pick<DeliveryKeys, 'get'>;
      sender: WebhookSender;
      metrics?: DeliveryMetricsPort;
      onError?: (err: unknown) => void;
    },
    private readonly policy: DeliveryPolicy,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.responses = new RecentResponses(Math.max(1, policy.slotWaitMs ?? DEFAULT_SLOT_WAIT_MS));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Stops claiming and waits for the sends in flight (their outcomes are recorded). */
  async stop(): Promise<void> {
    this.running = false;
    this.readyRetries.length = 0; // still due in the store: any replica's claim takes them
    for (const w of this.waiters.splice(0)) w.deny();
    this.wake();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.loopDone;
    await Promise.all(this.inflight);
  }

  /** New work is due now (stored by the fan-out, a resend, a retry whose time came). */
  wake(): void {
    this.lastClaimFound = true;
    this.resume();
  }

  /**
   * A retry this worker scheduled fell due. It takes its key's next free slot, before new deliveries
   * waiting for one, and is claimed by id (`claimOne`, no query over the due work), so a busy key's
   * retry goes out on time (spec 6.3: 2 s after the previous attempt) however many new deliveries
   * keep the key busy. If another replica claimed it first, the claim finds nothing and the slot is
   * given back.
   */
  private retryDue(deliveryId: string, keyId: string): void {
    this.readyRetries.push({ deliveryId, keyId });
    this.serveRetries();
  }

  /** Ready retries that have a slot now get it (see `retryDue`). */
  private serveRetries(): void {
    for (let i = 0; i < this.readyRetries.length;) {
      const r = this.readyRetries[i]!;
      if (!this.running) return;
      if (!this.hasRoom(r.keyId) || this.claimedInFlight >= this.policy.concurrency) {
        i++;
        continue;
      }
      this.readyRetries.splice(i, 1);
      this.takeSlot(r.keyId);
      this.claimRetry(r);
    }
  }

  private claimRetry(r: { deliveryId: string; keyId: string }): void {
    const now = this.now();
    const giveBack = () => {
      this.reserved--;
      this.freeKeySlot(r.keyId);
      this.slotFreed();
    };
    this.ports.deliveries
      .claimOne(r.deliveryId, { now, owner: this.owner, leaseUntil: new Date(now.getTime() + this.policy.leaseMs) })
      .then(
        (claimed) => {
          if (!claimed) return giveBack();
          this.reserved--;
          // Its failure is reported through onError (see launch); its claim expires.
          this.launch(claimed, true).catch(() => undefined);
        },
        (err: unknown) => {
          // Still due in the store: the claim loop takes it at a later claim.
          this.ports.onError?.(err);
          giveBack();
        },
      );
  }

  private resume(): void {
    const resume = this.wakeUp;
    this.wakeUp = undefined;
    if (resume) resume();
    else this.woken = true;
  }

  private retryAt(at: Date, deliveryId: string, keyId: string): void {
    // A few ms late rather than early: a claim made before `next_attempt_at` finds nothing.
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.retryDue(deliveryId, keyId);
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
    let lastClaim = 0;
    while (this.running) {
      const gap = (this.policy.claimGapMs ?? 0) - (Date.now() - lastClaim);
      if (gap > 0 && this.sending > 0) await new Promise((r) => setTimeout(r, gap));
      lastClaim = Date.now();
      const room = Math.min(
        this.policy.concurrency - this.sending - this.reserved,
        this.policy.concurrency - this.claimedInFlight,
      );
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
          this.lastClaimFound = claimed > 0;
          // A claimed attempt's failure is reported through onError (see launch); its claim expires.
          for (const c of batch) this.launch(c).catch(() => undefined);
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

  /**
   * A send slot for the first attempt of a new delivery (see EventFanOut): true at once when the pool
   * and the key's cap have room, or as soon as they do within `slotWaitMs`; false when not (the
   * delivery is then stored as due work and claimed like a retry, several times the database work).
   * How many may wait for one key: see `mayWait`; `maxWaiting` in all. Every true must be followed by
   * `sendFirst`.
   */
  async acquire(keyId: string): Promise<boolean> {
    const waited = !this.hasRoom(keyId);
    const granted = await this.slotFor(keyId);
    this.ports.metrics?.firstAttempt(granted ? (waited ? 'after_wait' : 'at_once') : 'stored');
    return granted;
  }

  private slotFor(keyId: string): Promise<boolean> {
    if (!this.running) return Promise.resolve(false);
    if (this.hasRoom(keyId)) {
      this.takeSlot(keyId);
      return Promise.resolve(true);
    }
    const waitingForKey = this.waiters.reduce((n, w) => n + (w.keyId === keyId ? 1 : 0), 0);
    const waitMs = this.policy.slotWaitMs ?? DEFAULT_SLOT_WAIT_MS;
    if (waitMs <= 0 || waitingForKey >= this.mayWait(keyId) || this.waiters.length >= this.maxWaiting)
      return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: SlotWaiter = {
        keyId,
        grant: () => {
          clearTimeout(timer);
          resolve(true);
        },
        deny: () => {
          clearTimeout(timer);
          resolve(false);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(false);
      }, waitMs);
      timer.unref();
      this.waiters.push(waiter);
    });
  }

  /**
   * The first attempt of a new delivery, in a slot from `acquire`, sent now with the key and event
   * the fan-out already holds. Nothing is written before the send: the platform event that caused it
   * stays unacknowledged on JetStream until the outcome is stored (`recordFirst`), and a redelivery
   * finds the event stored without this delivery and records the attempt as interrupted (see
   * EventFanOut). Resolves once the outcome is stored; rejects when it could not be.
   */
  sendFirst(event: WebhookEventRecord, key: DeliveryKey): Promise<void> {
    this.reserved--;
    const now = this.now();
    const leaseUntil = new Date(now.getTime() + this.policy.leaseMs);
    const token = claimToken(this.owner, leaseUntil);
    const delivery: DeliveryRecord = {
      ...newDelivery(event, key.key_id, now),
      status: 'delivering',
      attempt_count: 1,
      round_attempts: 1,
      next_attempt_at: leaseUntil,
      claim_token: token,
      claimed_at: now,
    };
    return this.launch({ delivery, claim_token: token, interrupted: null }, true, { event, key });
  }

  private get maxWaiting(): number {
    return this.policy.maxWaiting ?? this.policy.concurrency;
  }

  private hasRoom(keyId: string): boolean {
    return (
      this.sending + this.reserved < this.policy.concurrency &&
      (this.perKey.get(keyId) ?? 0) < this.policy.perKeyConcurrency
    );
  }

  private takeSlot(keyId: string): void {
    this.reserved++;
    this.addKeySlot(keyId);
  }

  private addKeySlot(key: string): void {
    const taken = (this.perKey.get(key) ?? 0) + 1;
    this.perKey.set(key, taken);
    if (taken === 1) this.busySince.set(key, Date.now());
  }

  /**
   * How many first attempts may wait for a slot of this key: about as many as it can serve within one
   * slot wait, i.e. its receiver's HTTP responses per `slotWaitMs` lately (timeouts and network errors
   * are none; early in a busy spell, the spell's rate so far), at least its cap. A big merchant's burst
   * then waits its turn instead of going the slow way (one busy key made 105 deliveries/s in the bench
   * when only its cap could wait), while a hanging or very slow receiver gets about its cap of waiters,
   * so it holds few messages, for at most a slot wait each. In the first BUSY_SPELL_GRACE_MS of a busy
   * spell (nothing was in flight to the key before) its receiver has had no time to answer: up to
   * `maxWaiting` may wait.
   */
  private mayWait(key: string): number {
    const maxWaiting = this.maxWaiting;
    const now = Date.now();
    const since = this.busySince.get(key);
    if (since !== undefined && now - since < BUSY_SPELL_GRACE_MS) return maxWaiting;
    const window = this.responses.windowMs;
    const observedMs = since === undefined ? window : Math.min(window, now - since);
    const servable = Math.ceil((this.responses.count(key) * window) / observedMs);
    return Math.min(maxWaiting, Math.max(this.policy.perKeyConcurrency, servable));
  }

  /**
   * A slot came free: a retry whose time came takes it first (`retryDue`), then waiting first
   * attempts, then the claim loop, which claims again only if its last claim found work (or it was
   * woken since): a claim that found nothing is not repeated on every finished send (a query each);
   * other due work held back by a full key is claimed at the next poll.
   */
  private slotFreed(): void {
    this.serveRetries();
    for (let i = 0; i < this.waiters.length;) {
      const w = this.waiters[i]!;
      if (!this.hasRoom(w.keyId)) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      this.takeSlot(w.keyId);
      w.grant();
    }
    if (this.lastClaimFound) this.resume();
  }

  private freeKeySlot(key: string): void {
    const left = (this.perKey.get(key) ?? 1) - 1;
    if (left > 0) this.perKey.set(key, left);
    else {
      this.perKey.delete(key);
      this.busySince.delete(key);
    }
  }

  /**
   * Runs one attempt in the pool; the returned promise settles like the attempt (claims ignore it).
   * The attempt's slot (pool and key) is given back as soon as the receiver has answered: recording
   * the outcome does not load the receiver, and a slot held through a batched write would leave the
   * receiver idle for the write's time. `stop` still waits for the recording (`inflight`).
   */
  private launch(c: ClaimedDelivery, slotTaken = false, first?: FirstAttempt): Promise<void> {
    const key = c.delivery.key_id;
    if (!slotTaken) this.addKeySlot(key);
    this.sending++;
    const claimed = first === undefined;
    if (claimed) this.claimedInFlight++;
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      this.sending--;
      this.freeKeySlot(key);
      this.slotFreed();
    };
    const answered = (responded: boolean) => {
      if (slotHeld && responded) this.responses.responded(key);
      freeSlot();
    };
    const attempt = this.attempt(c, first, answered);
    const run = attempt
      .catch((err: unknown) => this.ports.onError?.(err))
      .finally(() => {
        this.inflight.delete(run);
        if (claimed) this.claimedInFlight--;
        freeSlot();
      });
    this.inflight.add(run);
    return attempt;
  }

  /**
   * One attempt of one claimed delivery, then its outcome: conditional on the claim still being ours
   * for due work, inserted with the whole delivery for a first attempt (`first`).
   */
  async attempt(
    c: ClaimedDelivery,
    first?: FirstAttempt,
    /** The receiver is done with this attempt (true: it gave an HTTP response); its slot can go. */
    answered: (responded: boolean) => void = () => undefined,
  ): Promise<void> {
    const d = c.delivery;
    const interrupted = c.interrupted ? interruptedAttempt(d.attempt_count - 1, c.interrupted.started_at) : null;
    const earlier = interrupted ? [interrupted] : [];
    const refund = interrupted ? -1 : 0;
    const [key, event] = first
      ? [first.key, first.event]
      : await Promise.all([this.ports.keys.get(d.key_id), this.ports.events.get(d.event_id)]);
    if (!key || !key.active || !key.webhook_url || key.mode !== d.mode || !event) {
      answered(false);
      // Disabled, revoked or URL removed since the event: nothing is sent (a resend after re-enabling works).
      await this.record(
        c,
        first !== undefined,
        {
          status: 'failed',
          next_attempt_at: this.now(),
          attempt_count: d.attempt_count,
          round_attempts: d.round_attempts + refund - 1,
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
    answered(result.status !== null);
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
    const recorded = await this.record(
      c,
      first !== undefined,
      {
        status: outcome,
        next_attempt_at: outcome === 'pending' ? nextAt : finishedAt,
        attempt_count: d.attempt_count,
        round_attempts: d.round_attempts + refund,
        attempts: [...earlier, attempt],
        last_error_class: result.error_class,
      },
      finishedAt,
    );
    if (!recorded) return; // our lease expired and someone else owns it now: their record wins
    if (outcome === 'pending') this.retryAt(nextAt, d.delivery_id, d.key_id);
    else this.ports.metrics?.finished(d.event_type, outcome === 'succeeded' ? 'delivered' : 'failed', completedInRound);
  }

  /** Due work: the outcome updates the stored delivery. A first attempt: the delivery is stored with it. */
  private record(c: ClaimedDelivery, first: boolean, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    if (!first) return this.ports.deliveries.complete(c.delivery.delivery_id, c.claim_token, outcome, now);
    return this.ports.deliveries.recordFirst({
      ...c.delivery,
      status: outcome.status,
      next_attempt_at: outcome.next_attempt_at,
      attempt_count: outcome.attempt_count,
      round_attempts: outcome.round_attempts,
      claim_token: null,
      attempts: outcome.attempts,
      last_error_class: outcome.last_error_class,
      updated_at: now,
    });
  }
}

/** A new delivery's first attempt: the fan-out hands over the event and key it just read. */
interface FirstAttempt {
  event: WebhookEventRecord;
  key: DeliveryKey;
}

interface SlotWaiter {
  keyId: string;
  grant: () => void;
  deny: () => void;
}

/** How long a first attempt waits for a send slot before it is stored as due work instead. */
const DEFAULT_SLOT_WAIT_MS = 1_000;

/**
 * The start of a key's busy spell during which any number of first attempts may wait for it (see
 * `mayWait`): far beyond a receiver's usual answer time.
 */
const BUSY_SPELL_GRACE_MS = 250;

/**
 * A claim token: unique per claim, and carrying its lease's end so whoever records the outcome knows,
 * without a read, whether the lease still has time (see the Mongo delivery store).
 */
export function claimToken(owner: string, leaseUntil: Date): string {
  return `${owner}:${randomUUID()}:${leaseUntil.getTime()}`;
}

/** The lease end a claim token carries, or null for a token without one. */
export function leaseEndOf(token: string): number | null {
  const end = Number(token.slice(token.lastIndexOf(':') + 1));
  return Number.isSafeInteger(end) && end > 0 ? end : null;
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
