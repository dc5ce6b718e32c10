import { pingEvent } from '../memory-ports.test-util';
import { ClaimLoop } from './claim-loop';
import { newDelivery } from './delivery';
import type { DeliveryPolicy } from './delivery-policy';
import { FakeClock, settled } from './fake-clock.test-util';
import type { ClaimedDelivery, ClaimOptions } from './ports';
import { SendSlots } from './send-slots';

/** A key of merchant 1 as the send slots see it. */
const k = (keyId: string) => ({ keyId, merchantId: 1 });

const claimedFor = (id: string, keyId: string): ClaimedDelivery => ({
  delivery: { ...newDelivery(pingEvent(id), keyId, pingEvent(id).created_at), delivery_id: id },
  claim_token: `t_${id}`,
  interrupted: null,
});

/**
 * A claim loop over a scripted store: each claim returns the next of `batches` (then nothing). Each
 * attempt it starts holds its slot until the test answers it and stays unfinished until it finishes it.
 */
function loopWith(policy: Partial<DeliveryPolicy> = {}) {
  const clock = new FakeClock();
  const full = { concurrency: 4, perKeyConcurrency: 2, leaseMs: 60_000, pollIntervalMs: 500, ...policy };
  const batches: (ClaimedDelivery[] | Error)[] = [];
  const claims: ClaimOptions[] = [];
  const byId: (ClaimedDelivery | null)[] = [];
  const errors: unknown[] = [];
  const store = {
    claim: async (o: ClaimOptions) => {
      claims.push(o);
      const next = batches.shift() ?? [];
      if (next instanceof Error) throw next;
      return next;
    },
    claimOne: async () => byId.shift() ?? null,
  };
  const started: { id: string; reserved: boolean; answer: () => void; finish: () => void }[] = [];
  let freed = 0;
  const slots: SendSlots = new SendSlots(full, clock, () => {
    freed++;
    loop.slotFreed();
  });
  const loop: ClaimLoop = new ClaimLoop(
    { deliveries: store, onError: (err) => errors.push(err) },
    full,
    slots,
    clock,
    'w_test',
    (c, reserved) => {
      slots.occupy(k(c.delivery.key_id), reserved);
      return new Promise<void>((finish) =>
        started.push({
          id: c.delivery.delivery_id,
          reserved,
          answer: () => slots.release(k(c.delivery.key_id), true),
          finish,
        }),
      );
    },
  );
  slots.start();
  return { clock, slots, loop, batches, claims, byId, errors, started, freed: () => freed };
}

/** No claim for `ms` - 1 ms on the clock, then the next one. */
async function nextClaimAfter(t: ReturnType<typeof loopWith>, ms: number) {
  const before = t.claims.length;
  await t.clock.advance(ms - 1);
  expect(t.claims).toHaveLength(before);
  await t.clock.advance(1);
  expect(t.claims).toHaveLength(before + 1);
}

describe('ClaimLoop', () => {
  it('claims what the pool has room for, within each busy key, under a lease from the clock', async () => {
    const t = loopWith();
    t.slots.occupy(k('a'), false);
    t.slots.occupy(k('a'), false);
    t.loop.start();
    await settled();
    const now = t.clock.now();
    expect(t.claims[0]).toEqual({
      now,
      owner: 'w_test',
      leaseUntil: new Date(now.getTime() + 60_000),
      limit: 2,
      keyRoom: new Map([['a', 0]]),
      perKeyLimit: 2,
      merchantRoom: new Map([[1, 2]]),
      perMerchantLimit: 4,
    });
    await t.loop.stop();
  });

  it('starts a batch in the order claimed, claims again at once after a partial batch, then waits for the poll', async () => {
    const t = loopWith();
    t.batches.push([claimedFor('d1', 'a'), claimedFor('d2', 'b')], [claimedFor('d3', 'c')]);
    t.loop.start();
    await settled();
    expect(t.started.map((s) => [s.id, s.reserved])).toEqual([
      ['d1', false],
      ['d2', false],
      ['d3', false],
    ]);
    expect(t.claims.map((c) => c.limit)).toEqual([4, 2, 1]);
    await nextClaimAfter(t, 500);
    await t.loop.stop();
  });

  it('claims no more than the pool while claimed attempts are unfinished, though their slots are free', async () => {
    const t = loopWith({ concurrency: 2 });
    t.batches.push([claimedFor('d1', 'a'), claimedFor('d2', 'b')]);
    t.loop.start();
    await settled();
    for (const s of t.started) s.answer(); // receivers done, outcomes not written
    await t.clock.advance(1_000);
    expect(t.claims).toHaveLength(1);
    expect(t.loop.mayClaim(k('c'))).toBe(false);
    t.started[0]!.finish();
    await settled();
    expect(t.loop.mayClaim(k('c'))).toBe(true);
    await t.clock.advance(500);
    expect(t.claims.map((c) => c.limit)).toEqual([2, 1]);
    await t.loop.stop();
  });

  it('claims again when a slot comes free only if its last claim found work; a wake always claims', async () => {
    const t = loopWith({ concurrency: 2 });
    t.loop.start();
    await settled();
    expect(t.claims).toHaveLength(1); // found nothing
    t.slots.occupy(k('a'), false);
    t.slots.release(k('a'), true);
    await settled();
    expect(t.claims).toHaveLength(1);

    t.batches.push([claimedFor('d1', 'a'), claimedFor('d2', 'b')]);
    t.loop.wake();
    await settled();
    expect(t.claims).toHaveLength(2); // a full batch: nothing more to claim for now
    t.started[0]!.finish();
    t.started[0]!.answer();
    await settled();
    expect(t.claims.map((c) => c.limit)).toEqual([2, 2, 1]);
    await t.loop.stop();
  });

  it('leaves claimGapMs between claims while sends are in flight', async () => {
    const t = loopWith({ claimGapMs: 10 });
    t.batches.push([claimedFor('d1', 'a')]);
    t.loop.start();
    await settled();
    expect(t.claims).toHaveLength(1);
    await nextClaimAfter(t, 10);
    await t.loop.stop();
  });

  it('claims a due retry by id in a slot reserved for it, and gives the slot back when another replica had it', async () => {
    const t = loopWith({ concurrency: 2, perKeyConcurrency: 1 });
    t.loop.claim({ deliveryId: 'd1', keyId: 'a', merchantId: 1 });
    expect([t.slots.hasRoom(k('a')), t.slots.room()]).toEqual([false, 1]);
    await settled();
    expect([t.slots.hasRoom(k('a')), t.slots.room(), t.freed(), t.started]).toEqual([true, 2, 1, []]);

    t.byId.push(claimedFor('d1', 'a'));
    t.loop.claim({ deliveryId: 'd1', keyId: 'a', merchantId: 1 });
    await settled();
    expect(t.started.map((s) => [s.id, s.reserved])).toEqual([['d1', true]]);
    expect([t.slots.sendsInFlight, t.slots.room(), t.loop.mayClaim(k('a')), t.loop.mayClaim(k('b'))]).toEqual([
      1,
      1,
      false,
      true,
    ]);
  });

  it('reports a failed claim and tries again at the next poll; stops claiming once stopped', async () => {
    const t = loopWith();
    t.batches.push(new Error('mongo down'));
    t.loop.start();
    await settled();
    expect([t.claims.length, t.errors]).toEqual([1, [new Error('mongo down')]]);
    await nextClaimAfter(t, 500);
    await t.loop.stop();
    await t.clock.advance(5_000);
    expect(t.claims).toHaveLength(2);
  });
});
