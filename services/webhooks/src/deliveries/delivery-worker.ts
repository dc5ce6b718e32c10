import { randomUUID } from 'node:crypto';
import type { DeliveryKey, DeliveryKeys, EventStore, WebhookSender } from '../ports';
import type { WebhookEventRecord } from '../webhook-events/webhook-event';
import { ClaimLoop } from './claim-loop';
import type { DeliveryPolicy } from './delivery-policy';
import type { LocalDispatch } from './fan-out';
import type { AttemptStore, ClaimedDelivery, Clock, DeliveryMetricsPort } from './ports';
import { RetryTimers } from './retry-timers';
import { AttemptRunner, firstAttemptClaim, type FirstAttempt } from './send-attempt';
import { SendSlots, type SlotHolder } from './send-slots';
import { systemClock } from './system-clock';

/**
 * Sends deliveries. New ones are sent at once when a slot is free (`acquire`, `sendFirst`: nothing is
 * written before that send; see EventFanOut). Due work (retries, resends, deliveries that found no
 * slot) is claimed (ClaimLoop). The parts: the send slots (SendSlots), the retries this worker
 * scheduled (RetryTimers), the claims (ClaimLoop) and one attempt's send and record (AttemptRunner).
 */
export class DeliveryWorker implements LocalDispatch {
  readonly owner = `w_${randomUUID()}`;
  /** Attempts not finished yet (sent or not), which `stop` waits for. */
  private readonly inflight = new Set<Promise<void>>();
  private readonly slots: SendSlots;
  private readonly retries: RetryTimers;
  private readonly claims: ClaimLoop;
  private readonly attempts: AttemptRunner;

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
    private readonly clock: Clock = systemClock,
  ) {
    this.slots = new SendSlots(policy, clock, () => this.slotFreed());
    this.claims = new ClaimLoop(ports, policy, this.slots, clock, this.owner, (c, reserved) =>
      this.launch(c, reserved),
    );
    this.retries = new RetryTimers(clock, this.claims);
    this.attempts = new AttemptRunner(ports, policy, clock, (at, retry) => this.retries.schedule(at, retry));
  }

  start(): void {
    this.slots.start();
    this.retries.start();
    this.claims.start();
  }

  /** Stops claiming and waits for the sends in flight (their outcomes are recorded). */
  async stop(): Promise<void> {
    this.retries.stop();
    this.slots.close();
    await this.claims.stop();
    await Promise.all(this.inflight);
  }

  /** New work is due now (stored by the fan-out, a resend). */
  wake(): void {
    this.claims.wake();
  }

  /**
   * A send slot for the first attempt of a new delivery (see EventFanOut and SendSlots.wait). Every
   * true must be followed by `sendFirst`.
   */
  async acquire(holder: SlotHolder): Promise<boolean> {
    const waited = !this.slots.hasRoom(holder);
    const granted = await this.slots.wait(holder);
    this.ports.metrics?.firstAttempt(granted ? (waited ? 'after_wait' : 'at_once') : 'stored');
    return granted;
  }

  /**
   * The first attempt of a new delivery, in a slot from `acquire`, sent now with the key and event
   * the fan-out already holds. Nothing is written before the send: the platform event that caused it
   * stays unacknowledged on JetStream until the outcome is stored (AttemptStore.recordFirst), and a
   * redelivery finds the event stored without this delivery and records the attempt as interrupted
   * (see EventFanOut). Resolves once the outcome is stored; rejects when it could not be.
   */
  sendFirst(event: WebhookEventRecord, key: DeliveryKey): Promise<void> {
    const claimed = firstAttemptClaim(event, key, this.owner, this.clock.now(), this.policy.leaseMs);
    return this.launch(claimed, true, { event, key });
  }

  /**
   * Runs one attempt in a send slot; the returned promise settles like the attempt. The slot is given
   * back as soon as the receiver has answered: recording the outcome does not load the receiver, and a
   * slot held through a batched write would leave the receiver idle for the write's time. `stop` still
   * waits for the recording (`inflight`).
   */
  private launch(c: ClaimedDelivery, reserved: boolean, first?: FirstAttempt): Promise<void> {
    const key: SlotHolder = { keyId: c.delivery.key_id, merchantId: c.delivery.merchant_id };
    this.slots.occupy(key, reserved);
    let slotHeld = true;
    const freeSlot = (responded: boolean) => {
      if (!slotHeld) return;
      slotHeld = false;
      this.slots.release(key, responded);
    };
    const attempt = this.attempts.run(c, first, freeSlot);
    const run = attempt
      .catch((err: unknown) => this.ports.onError?.(err))
      .finally(() => {
        this.inflight.delete(run);
        freeSlot(false);
      });
    this.inflight.add(run);
    return attempt;
  }

  /**
   * A slot came free: a retry whose time came takes it first (RetryTimers), then first attempts
   * waiting for one (SendSlots.wait), then the claim loop (ClaimLoop.slotFreed).
   */
  private slotFreed(): void {
    this.retries.serve();
    this.slots.serveWaiters();
    this.claims.slotFreed();
  }
}
