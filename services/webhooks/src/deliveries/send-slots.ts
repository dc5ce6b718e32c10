import type { DeliveryPolicy } from './delivery-policy';
import type { Clock } from './ports';
import { RecentResponses } from './recent-responses';

/** How long a first attempt waits for a send slot before it is stored as due work instead. */
const DEFAULT_SLOT_WAIT_MS = 1_000;

/**
 * The start of a key's busy spell during which any number of first attempts may wait for it (see
 * `mayWait`): far beyond a receiver's usual answer time.
 */
const BUSY_SPELL_GRACE_MS = 250;

type SlotPolicy = Pick<
  DeliveryPolicy,
  'concurrency' | 'perKeyConcurrency' | 'perMerchantConcurrency' | 'slotWaitMs' | 'maxWaiting'
>;

/** Whose send takes a slot: a key (one receiver endpoint) of a merchant. */
export interface SlotHolder {
  keyId: string;
  merchantId: number;
}

interface SlotWaiter {
  holder: SlotHolder;
  grant: () => void;
  deny: () => void;
}

/**
 * The worker's send slots: a global pool bounds the sends in flight, a per-key cap keeps one slow
 * receiver from taking the whole pool, and a per-merchant cap keeps one merchant's many keys (hanging
 * receivers, each within its key's cap) from taking it either (docs/decisions.md, H2-3). A slot is either reserved ahead of its send (`reserve`, `wait`:
 * a new delivery's first attempt, or a retry before its claim) or taken as a claimed attempt starts
 * (`occupy`); reserved slots count like sends in flight. It is given back once the receiver has
 * answered (`release`) or when its attempt never starts (`unreserve`), and `freed` is told.
 */
export class SendSlots {
  /** Attempts whose receiver has not answered yet. */
  private sending = 0;
  /** Slots reserved for attempts that have not started yet. */
  private reserved = 0;
  private readonly perKey = new Map<string, number>();
  private readonly perMerchant = new Map<number, number>();
  /** First attempts waiting for a slot (see `wait`), oldest first. */
  private readonly waiters: SlotWaiter[] = [];
  /** Since when (ms) each key has had slots taken without a break (see `mayWait`). */
  private readonly busySince = new Map<string, number>();
  /** HTTP responses per key lately (see `mayWait`). */
  private readonly responses: RecentResponses;
  private open = false;

  constructor(
    private readonly policy: SlotPolicy,
    private readonly clock: Clock,
    /** A slot came free (see DeliveryWorker.slotFreed for who gets it). */
    private readonly freed: () => void,
  ) {
    this.responses = new RecentResponses(Math.max(1, this.slotWaitMs), () => this.clock.now().getTime());
  }

  /** Waits may begin (the worker started). */
  start(): void {
    this.open = true;
  }

  /** Every waiting first attempt gets no slot, and so does any later one (the worker stopped). */
  close(): void {
    this.open = false;
    for (const w of this.waiters.splice(0)) w.deny();
  }

  /** Whether the pool, the key's cap and its merchant's cap have room for one more send now. */
  hasRoom(holder: SlotHolder): boolean {
    return (
      this.sending + this.reserved < this.policy.concurrency &&
      (this.perKey.get(holder.keyId) ?? 0) < this.policy.perKeyConcurrency &&
      (this.perMerchant.get(holder.merchantId) ?? 0) < this.perMerchantLimit
    );
  }

  /** Sends in flight one merchant's keys may have together (default: the pool). */
  get perMerchantLimit(): number {
    return this.policy.perMerchantConcurrency ?? this.policy.concurrency;
  }

  /** Sends the pool could start now, all keys together. */
  room(): number {
    return this.policy.concurrency - this.sending - this.reserved;
  }

  /** How many more sends each key with slots taken could start now (keys not listed: their whole cap). */
  keyRoom(): Map<string, number> {
    const room = new Map<string, number>();
    for (const [key, n] of this.perKey) room.set(key, this.policy.perKeyConcurrency - n);
    return room;
  }

  /** How many more sends each merchant with slots taken could start now (merchants not listed: their whole cap). */
  merchantRoom(): Map<number, number> {
    const room = new Map<number, number>();
    for (const [merchant, n] of this.perMerchant) room.set(merchant, this.perMerchantLimit - n);
    return room;
  }

  /** Attempts whose receiver has not answered yet. */
  get sendsInFlight(): number {
    return this.sending;
  }

  /** Takes a slot of the key for an attempt that starts later (the caller checked `hasRoom`). */
  reserve(holder: SlotHolder): void {
    this.reserved++;
    this.addKeySlot(holder);
  }

  /** A reserved slot whose attempt will not start after all. */
  unreserve(holder: SlotHolder): void {
    this.reserved--;
    this.freeKeySlot(holder);
    this.freed();
  }

  /** An attempt starts sending: in the slot reserved for it, or in one of its key taken now. */
  occupy(holder: SlotHolder, reserved: boolean): void {
    if (reserved) this.reserved--;
    else this.addKeySlot(holder);
    this.sending++;
  }

  /** The receiver of an attempt in `occupy`'s slot is done with it (`responded`: it gave an HTTP response). */
  release(holder: SlotHolder, responded: boolean): void {
    if (responded) this.responses.responded(holder.keyId);
    this.sending--;
    this.freeKeySlot(holder);
    this.freed();
  }

  /**
   * A slot of the key for a new delivery's first attempt: true at once when the pool and the key's cap
   * have room, or as soon as they do within `slotWaitMs`; false when not (the delivery is then stored as
   * due work and claimed like a retry, several times the database work). How many may wait for one
   * key: see `mayWait`; `maxWaiting` in all. A true is a reserved slot.
   */
  wait(holder: SlotHolder): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    if (this.hasRoom(holder)) {
      this.reserve(holder);
      return Promise.resolve(true);
    }
    const waitingForKey = this.waiters.reduce((n, w) => n + (w.holder.keyId === holder.keyId ? 1 : 0), 0);
    const waitMs = this.slotWaitMs;
    if (waitMs <= 0 || waitingForKey >= this.mayWait(holder.keyId) || this.waiters.length >= this.maxWaiting)
      return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: SlotWaiter = {
        holder,
        grant: () => {
          cancel();
          resolve(true);
        },
        deny: () => {
          cancel();
          resolve(false);
        },
      };
      const cancel = this.clock.after(waitMs, () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(false);
      });
      this.waiters.push(waiter);
    });
  }

  /** Waiting first attempts whose key has room now get their slot, oldest first. */
  serveWaiters(): void {
    for (let i = 0; i < this.waiters.length;) {
      const w = this.waiters[i]!;
      if (!this.hasRoom(w.holder)) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      this.reserve(w.holder);
      w.grant();
    }
  }

  private get slotWaitMs(): number {
    return this.policy.slotWaitMs ?? DEFAULT_SLOT_WAIT_MS;
  }

  private get maxWaiting(): number {
    return this.policy.maxWaiting ?? this.policy.concurrency;
  }

  /**
   * How many first attempts may wait for a slot of this key: about as many as it can serve within one
   * slot wait, i.e. its receiver's HTTP responses per `slotWaitMs` lately (timeouts and network errors
   * are none; early in a busy spell, the spell's rate so far), at least its cap. A big merchant's burst
   * then waits its turn instead of going the slow way, while a hanging or very slow receiver gets about
   * its cap of waiters, so it holds few messages, for at most a slot wait each. In the first
   * BUSY_SPELL_GRACE_MS of a busy spell (nothing was in flight to the key before) its receiver has had
   * no time to answer: up to `maxWaiting` may wait.
   */
  private mayWait(keyId: string): number {
    const maxWaiting = this.maxWaiting;
    const now = this.clock.now().getTime();
    const since = this.busySince.get(keyId);
    if (since !== undefined && now - since < BUSY_SPELL_GRACE_MS) return maxWaiting;
    const window = this.responses.windowMs;
    const observedMs = since === undefined ? window : Math.min(window, now - since);
    const servable = Math.ceil((this.responses.count(keyId) * window) / observedMs);
    return Math.min(maxWaiting, Math.max(this.policy.perKeyConcurrency, servable));
  }

  private addKeySlot({ keyId, merchantId }: SlotHolder): void {
    const taken = (this.perKey.get(keyId) ?? 0) + 1;
    this.perKey.set(keyId, taken);
    if (taken === 1) this.busySince.set(keyId, this.clock.now().getTime());
    this.perMerchant.set(merchantId, (this.perMerchant.get(merchantId) ?? 0) + 1);
  }

  private freeKeySlot({ keyId, merchantId }: SlotHolder): void {
    const left = (this.perKey.get(keyId) ?? 1) - 1;
    if (left > 0) this.perKey.set(keyId, left);
    else {
      this.perKey.delete(keyId);
      this.busySince.delete(keyId);
    }
    const merchantLeft = (this.perMerchant.get(merchantId) ?? 1) - 1;
    if (merchantLeft > 0) this.perMerchant.set(merchantId, merchantLeft);
    else this.perMerchant.delete(merchantId);
  }
}
