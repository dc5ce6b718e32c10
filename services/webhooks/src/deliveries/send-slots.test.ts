import { FakeClock, settled } from './fake-clock.test-util';
import { SendSlots } from './send-slots';

/** A key of merchant 1 as the send slots see it. */
const k = (keyId: string) => ({ keyId, merchantId: 1 });

type SlotPolicy = ConstructorParameters<typeof SendSlots>[0];

function slotsWith(policy: SlotPolicy) {
  const clock = new FakeClock();
  let freed = 0;
  const slots: SendSlots = new SendSlots(policy, clock, () => {
    freed++;
    slots.serveWaiters();
  });
  slots.start();
  return { clock, slots, freed: () => freed };
}

/** A wait for a slot, and what it resolved to so far (undefined: still waiting). */
function waitFor(slots: SendSlots, keyId: string) {
  const w = { keyId, result: undefined as boolean | undefined };
  void slots.wait(k(keyId)).then((granted) => (w.result = granted));
  return w;
}

describe('SendSlots', () => {
  it('caps the sends of one merchant’s keys together, leaving the rest of the pool to others (H2-3)', () => {
    const { slots } = slotsWith({ concurrency: 8, perKeyConcurrency: 2, perMerchantConcurrency: 3 });
    const m1 = (keyId: string) => ({ keyId, merchantId: 1 });
    slots.occupy(m1('a'), false);
    slots.occupy(m1('a'), false);
    slots.reserve(m1('b'));
    expect([slots.hasRoom(m1('b')), slots.hasRoom(m1('c')), slots.hasRoom({ keyId: 'd', merchantId: 2 })]).toEqual([
      false,
      false,
      true,
    ]);
    expect([...slots.merchantRoom()]).toEqual([[1, 0]]);
    slots.release(m1('a'), true);
    expect([slots.hasRoom(m1('c')), [...slots.merchantRoom()]]).toEqual([true, [[1, 1]]]);
  });

  it('caps the sends of each key and of the pool, counting reserved slots like sends', () => {
    const { slots, freed } = slotsWith({ concurrency: 3, perKeyConcurrency: 2 });
    slots.occupy(k('a'), false);
    slots.occupy(k('a'), false);
    expect([slots.hasRoom(k('a')), slots.hasRoom(k('b'))]).toEqual([false, true]);
    slots.reserve(k('b'));
    expect([slots.hasRoom(k('b')), slots.hasRoom(k('c')), slots.room()]).toEqual([false, false, 0]);
    expect([...slots.keyRoom()]).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
    expect(slots.sendsInFlight).toBe(2);
    slots.occupy(k('b'), true); // the reserved slot starts sending: still one slot
    expect([slots.sendsInFlight, slots.room()]).toEqual([3, 0]);

    slots.release(k('a'), true);
    expect(freed()).toBe(1);
    expect([slots.hasRoom(k('a')), slots.room()]).toEqual([true, 1]);
    expect([...slots.keyRoom()]).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    slots.release(k('a'), true);
    slots.release(k('b'), false);
    expect([slots.room(), [...slots.keyRoom()]]).toEqual([3, []]);
  });

  it('grants a slot at once when there is room, and reserves it', async () => {
    const { slots } = slotsWith({ concurrency: 2, perKeyConcurrency: 1 });
    expect(await slots.wait(k('a'))).toBe(true);
    expect([slots.hasRoom(k('a')), slots.room(), slots.sendsInFlight]).toEqual([false, 1, 0]);
    slots.unreserve(k('a'));
    expect([slots.hasRoom(k('a')), slots.room()]).toEqual([true, 2]);
  });

  it('serves waiting first attempts oldest first, each once its key and the pool have room', async () => {
    const { slots } = slotsWith({ concurrency: 3, perKeyConcurrency: 1, slotWaitMs: 1_000 });
    for (const key of ['a', 'b', 'c']) expect(await slots.wait(k(key))).toBe(true);
    const waiting = [waitFor(slots, 'a'), waitFor(slots, 'c'), waitFor(slots, 'd')];
    const granted = () => waiting.filter((w) => w.result).map((w) => w.keyId);
    await settled();
    expect(granted()).toEqual([]);

    slots.occupy(k('b'), true);
    slots.release(k('b'), true); // one slot of the pool: a and c are at their cap, d is not
    await settled();
    expect(granted()).toEqual(['d']);
    slots.occupy(k('a'), true);
    slots.release(k('a'), true);
    await settled();
    expect(granted()).toEqual(['a', 'd']);
    expect(waiting[1]!.result).toBeUndefined();
  });

  it('gives up a wait after slotWaitMs on the clock, and the slot that comes later goes to no one', async () => {
    const { clock, slots } = slotsWith({ concurrency: 4, perKeyConcurrency: 1, slotWaitMs: 1_000 });
    expect(await slots.wait(k('a'))).toBe(true);
    const w = waitFor(slots, 'a');
    await clock.advance(999);
    expect(w.result).toBeUndefined();
    await clock.advance(1);
    expect(w.result).toBe(false);
    slots.unreserve(k('a'));
    expect(slots.hasRoom(k('a'))).toBe(true);
  });

  it('lets only the key cap wait once a busy spell is past its first 250 ms without a response', async () => {
    const { clock, slots } = slotsWith({ concurrency: 8, perKeyConcurrency: 2, slotWaitMs: 1_000 });
    slots.occupy(k('a'), false);
    slots.occupy(k('a'), false);
    await clock.advance(300);
    const waits = [waitFor(slots, 'a'), waitFor(slots, 'a'), waitFor(slots, 'a')];
    await settled();
    expect(waits.map((w) => w.result)).toEqual([undefined, undefined, false]);
  });

  it('lets up to maxWaiting wait early in a busy spell, all keys together', async () => {
    const { clock, slots } = slotsWith({ concurrency: 1, perKeyConcurrency: 1, slotWaitMs: 1_000, maxWaiting: 3 });
    slots.occupy(k('a'), false);
    await clock.advance(100);
    const waits = ['a', 'a', 'b', 'c'].map((key) => waitFor(slots, key));
    await settled();
    expect(waits.map((w) => w.result)).toEqual([undefined, undefined, undefined, false]);
  });

  it("lets as many wait as the key's receiver answered per slot wait so far in its spell; timeouts count for none", async () => {
    for (const responded of [true, false]) {
      const { clock, slots } = slotsWith({ concurrency: 16, perKeyConcurrency: 2, slotWaitMs: 1_000 });
      slots.occupy(k('a'), false);
      slots.occupy(k('a'), false);
      for (let i = 0; i < 6; i++) {
        await clock.advance(80);
        slots.release(k('a'), responded);
        slots.occupy(k('a'), false);
      }
      // 6 responses in 480 ms of the spell: 13 per 1 s slot wait; with none, the cap (2).
      const waits = Array.from({ length: 14 }, () => waitFor(slots, 'a'));
      await settled();
      expect(waits.filter((w) => w.result === false)).toHaveLength(responded ? 1 : 12);
    }
  });

  it('never waits with slotWaitMs 0, nor before start or after close; close denies those waiting', async () => {
    const { slots } = slotsWith({ concurrency: 1, perKeyConcurrency: 1, slotWaitMs: 0 });
    expect(await slots.wait(k('a'))).toBe(true);
    expect(await slots.wait(k('b'))).toBe(false);

    const clock = new FakeClock();
    const closed = new SendSlots({ concurrency: 1, perKeyConcurrency: 1 }, clock, () => undefined);
    expect(await closed.wait(k('a'))).toBe(false);
    closed.start();
    expect(await closed.wait(k('a'))).toBe(true);
    const w = waitFor(closed, 'a');
    closed.close();
    await settled();
    expect(w.result).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    closed.unreserve(k('a'));
    expect(await closed.wait(k('a'))).toBe(false);
  });
});
