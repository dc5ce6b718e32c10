import type { DeliveryPolicy } from './delivery-policy';
import type { AttemptStore, ClaimedDelivery, Clock } from './ports';
import type { DueRetry, RetryClaimer } from './retry-timers';
import type { SendSlots, SlotHolder } from './send-slots';

type ClaimPolicy = Pick<
  DeliveryPolicy,
  'concurrency' | 'perKeyConcurrency' | 'leaseMs' | 'pollIntervalMs' | 'claimGapMs'
>;

/**
 * Claims due work: retries whose time came, resends, deliveries that found no slot, and what other
 * replicas or crashed workers left. Claims are conditional updates with a lease (see
 * AttemptStore.claim), so any number of replicas can run this and a killed one's claims come back
 * after `leaseMs`; such an attempt is counted when claimed, before anything is sent. A claim asks for
 * no more than the free slots, per key too, and claimed attempts not finished yet (outcome written or
 * not) stay within the pool's size, so claims never run ahead of the outcomes' writes.
 */
export class ClaimLoop implements RetryClaimer {
  private running = false;
  private done: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private woken = false;
  /** Whether the last claim found work (or new work was announced since): see `slotFreed`. */
  private lastClaimFound = true;
  /** Claimed attempts not finished yet, outcome written or not. */
  private unfinished = 0;

  constructor(
    private readonly ports: {
      deliveries: Pick<AttemptStore, 'claim' | 'claimOne'>;
      onError?: (err: unknown) => void;
    },
    private readonly policy: ClaimPolicy,
    private readonly slots: SendSlots,
    private readonly clock: Clock,
    /** Whose claims these are (see claimToken). */
    private readonly owner: string,
    /** Runs a claimed attempt (`reserved`: in a slot reserved for it); settles like the attempt. */
    private readonly run: (claimed: ClaimedDelivery, reserved: boolean) => Promise<void>,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.loop();
  }

  /** Stops claiming; resolves once the loop has ended (attempts it started may still be running). */
  stop(): Promise<void> {
    this.running = false;
    this.wake();
    return this.done;
  }

  /** New work is due now (stored by the fan-out, a resend). */
  wake(): void {
    this.lastClaimFound = true;
    this.resume();
  }

  /**
   * A slot came free and no due retry or waiting first attempt took it: claim again, but only if the
   * last claim found work (or the loop was woken since). A claim that found nothing is not repeated on
   * every finished send (a query each); other due work held back by a full key is claimed at the next
   * poll.
   */
  slotFreed(): void {
    if (this.lastClaimFound) this.resume();
  }

  mayClaim(holder: SlotHolder): boolean {
    return this.slots.hasRoom(holder) && this.unfinished < this.policy.concurrency;
  }

  /** Claims a retry by id in a slot of its key; if another replica claimed it first, the slot is given back. */
  claim(retry: DueRetry): void {
    this.slots.reserve(retry);
    const now = this.clock.now();
    this.ports.deliveries.claimOne(retry.deliveryId, { now, owner: this.owner, leaseUntil: this.leaseFrom(now) }).then(
      (claimed) => {
        if (!claimed) return this.slots.unreserve(retry);
        this.launch(claimed, true);
      },
      (err: unknown) => {
        // Still due in the store: the loop takes it at a later claim.
        this.ports.onError?.(err);
        this.slots.unreserve(retry);
      },
    );
  }

  private launch(claimed: ClaimedDelivery, reserved: boolean): void {
    this.unfinished++;
    // A failed attempt is reported by `run`; its claim expires.
    const finished = () => void this.unfinished--;
    this.run(claimed, reserved).then(finished, finished);
  }

  private leaseFrom(now: Date): Date {
    return new Date(now.getTime() + this.policy.leaseMs);
  }

  private async loop(): Promise<void> {
    let lastClaim = 0;
    while (this.running) {
      const gap = (this.policy.claimGapMs ?? 0) - (this.clock.now().getTime() - lastClaim);
      if (gap > 0 && this.slots.sendsInFlight > 0) await new Promise<void>((r) => this.clock.after(gap, r));
      lastClaim = this.clock.now().getTime();
      const room = Math.min(this.slots.room(), this.policy.concurrency - this.unfinished);
      let claimed = 0;
      if (room > 0) {
        try {
          const now = this.clock.now();
          const batch = await this.ports.deliveries.claim({
            now,
            owner: this.owner,
            leaseUntil: this.leaseFrom(now),
            limit: room,
            keyRoom: this.slots.keyRoom(),
            perKeyLimit: this.policy.perKeyConcurrency,
            merchantRoom: this.slots.merchantRoom(),
            perMerchantLimit: this.slots.perMerchantLimit,
          });
          claimed = batch.length;
          this.lastClaimFound = claimed > 0;
          for (const c of batch) this.launch(c, false);
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

  private resume(): void {
    const resume = this.wakeUp;
    this.wakeUp = undefined;
    if (resume) resume();
    else this.woken = true;
  }

  private idle(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const cancel = this.clock.after(ms, () => {
        this.wakeUp = undefined;
        resolve();
      });
      this.wakeUp = () => {
        cancel();
        resolve();
      };
    });
  }
}
