import { hangingAndFastReceivers, hangingReceivers, paymentEvent, setup, until } from '../memory-world.test-util';

describe('first attempts waiting for a send slot', () => {
  it("gives a key's slot back once its receiver has answered, not once the outcome is written", async () => {
    const t = setup({ perKeyConcurrency: 1, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    let storeOutcomes!: () => void;
    const writesHeld = new Promise<void>((r) => (storeOutcomes = r));
    const recordFirst = t.deliveries.recordFirst.bind(t.deliveries);
    t.deliveries.recordFirst = async (d) => {
      await writesHeld;
      return recordFirst(d);
    };
    const insertMany = jest.spyOn(t.deliveries, 'insertMany');
    t.worker.start();
    const ingests = [1, 2].map((i) => t.ingest(paymentEvent(`w${i}`, { charge_id: `c${i}` })));
    // With a cap of 1 and no outcome written yet, the second was sent well within its slot wait: the
    // first's answer freed the slot, though the store still holds neither.
    await until(() => t.sender.sent.length === 2, 1_000);
    expect(t.deliveries.rows.size).toBe(0);
    storeOutcomes();
    expect((await Promise.all(ingests)).map((r) => r!.created)).toEqual([1, 1]);
    await t.worker.stop();
    expect(insertMany).not.toHaveBeenCalled(); // neither waited long enough to become due work
    expect([...t.deliveries.rows.values()].map((d) => [d.status, d.attempt_count])).toEqual(
      Array(2).fill(['succeeded', 1]),
    );
  });

  it('a first attempt waits briefly for its key to have a slot instead of becoming due work', async () => {
    const t = setup({ perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    const insertMany = jest.spyOn(t.deliveries, 'insertMany');
    t.worker.start();
    // Two sending, two waiting (up to the key's cap of waiters).
    await Promise.all([1, 2, 3, 4].map((i) => t.ingest(paymentEvent(`s${i}`, { charge_id: `c${i}` }))));
    await t.worker.stop();
    expect(insertMany).not.toHaveBeenCalled(); // every one went the fast way
    expect([...t.deliveries.rows.values()].map((d) => [d.status, d.attempt_count])).toEqual(
      Array(4).fill(['succeeded', 1]),
    );
  });

  it('a burst for one key waits for its slots instead of becoming due work, up to the pool', async () => {
    const t = setup({ concurrency: 8, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    const insertMany = jest.spyOn(t.deliveries, 'insertMany');
    t.worker.start();
    // Two are sent and eight wait (the pool's size, well beyond the key's cap of 2); two go the slow way.
    await Promise.all(Array.from({ length: 12 }, (_, i) => t.ingest(paymentEvent(`b${i}`, { charge_id: `b${i}` }))));
    await until(
      () => t.deliveries.rows.size === 12 && [...t.deliveries.rows.values()].every((d) => d.status === 'succeeded'),
    );
    await t.worker.stop();
    expect(insertMany).toHaveBeenCalledTimes(2);
    expect(t.sender.sent).toHaveLength(12);
    const count = (path: string) => t.firstAttempts.filter((p) => p === path).length;
    expect([count('at_once'), count('after_wait'), count('stored')]).toEqual([2, 8, 2]);
  });

  it('a key whose sends time out gets only its cap of waiters, also right after a timeout freed a slot', async () => {
    const t = setup({ concurrency: 8, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k', webhook_url: 'http://127.0.0.1:1/slow' });
    let timingOut = true;
    t.sender.send = async (input) => {
      t.sender.sent.push(input);
      if (!timingOut) return { status: 200, success: true, duration_ms: 1, error_class: null, response_excerpt: '' };
      await new Promise((r) => setTimeout(r, 400));
      return { status: null, success: false, duration_ms: 400, error_class: 'timeout', response_excerpt: '' };
    };
    t.worker.start();
    // Two sending and two waiting from the start of the spell; at 400 ms the two sends time out and the
    // waiting two take their slots, so the key never stops being busy.
    const early = [0, 1, 2, 3].map((i) => t.ingest(paymentEvent(`t${i}`, { charge_id: `t${i}` })));
    await until(() => t.sender.sent.length === 4, 1_000);
    const stored = () => t.firstAttempts.filter((p) => p === 'stored').length;
    const storedBefore = stored();
    // Just after the timeouts: no response in the spell, so only the cap (2) may wait; two are stored.
    const later = [4, 5, 6, 7].map((i) => t.ingest(paymentEvent(`t${i}`, { charge_id: `t${i}` })));
    await until(() => stored() - storedBefore === 2, 300);
    timingOut = false;
    await Promise.all([...early, ...later]);
    await t.worker.stop();
  });

  it("lets as many wait as the key's response rate so far in its busy spell serves within a slot wait", async () => {
    const t = setup({ concurrency: 16, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    t.keys.add({ key_id: 'k' });
    t.sender.send = async (input) => {
      t.sender.sent.push(input);
      await new Promise((r) => setTimeout(r, 100)); // 2 slots: about 20 responses per second
      return { status: 200, success: true, duration_ms: 100, error_class: null, response_excerpt: '' };
    };
    t.worker.start();
    const first = Array.from({ length: 10 }, (_, i) => t.ingest(paymentEvent(`r${i}`, { charge_id: `r${i}` })));
    await new Promise((r) => setTimeout(r, 350)); // past the spell's first 250 ms, about 6 responses in
    // 6 responses in 350 ms is ~34 per 2 s slot wait: all twelve more may wait (only 6 if the count were
    // not scaled to the spell), and each gets its slot within the wait.
    const later = Array.from({ length: 12 }, (_, i) => t.ingest(paymentEvent(`s${i}`, { charge_id: `s${i}` })));
    await Promise.all([...first, ...later]);
    await t.worker.stop();
    expect(t.firstAttempts.filter((p) => p === 'stored')).toEqual([]);
    expect(t.sender.sent).toHaveLength(22);
  });

  it('a key whose receiver stopped answering gets only its cap of waiters; the rest become due work at once', async () => {
    const t = setup({ concurrency: 8, perKeyConcurrency: 2, slotWaitMs: 2_000 }, { handOff: true });
    const { release } = hangingAndFastReceivers(t);
    t.worker.start();
    const first = [0, 1].map((i) => t.ingest(paymentEvent(`h${i}`, { charge_id: `h${i}` })));
    await until(() => t.sender.sent.length === 2);
    await new Promise((r) => setTimeout(r, 300)); // full, and nothing answered: stuck
    const started = Date.now();
    const later = [2, 3, 4, 5].map((i) => t.ingest(paymentEvent(`h${i}`, { charge_id: `h${i}` })));
    // Two wait (the cap); two are stored as due work without waiting out the 2 s.
    await until(() => t.deliveries.rows.size === 2, 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    release();
    await Promise.all([...first, ...later]);
    await until(() => t.sender.sent.length === 6);
    await t.worker.stop();
  });

  it('a hanging receiver holds its cap and its waiters spill to due work; another merchant is not held up', async () => {
    const t = setup({ concurrency: 4, perKeyConcurrency: 2, slotWaitMs: 50 }, { handOff: true });
    const { release, maxSlow } = hangingAndFastReceivers(t);
    t.worker.start();
    const slow = Array.from({ length: 6 }, (_, i) => t.ingest(paymentEvent(`slow${i}`, { charge_id: `c${i}` })));
    const fast = await Promise.all(
      Array.from({ length: 3 }, (_, i) => t.ingest(paymentEvent(`fast${i}`, { merchant_id: 2, charge_id: `f${i}` }))),
    );
    expect(fast.map((r) => r!.created)).toEqual([1, 1, 1]);
    expect(maxSlow()).toBe(2);
    // The four slow ones beyond the cap were stored as due work within slotWaitMs.
    await until(() => [...t.deliveries.rows.values()].filter((d) => d.key_id === 'slow').length === 4);
    release();
    await Promise.all(slow);
    await until(() => t.sender.sent.length === 9);
    await t.worker.stop();
    expect(maxSlow()).toBe(2);
  });

  it('one merchant’s nine keys at hanging receivers take only its share of the pool (H2-3)', async () => {
    const t = setup(
      { concurrency: 8, perKeyConcurrency: 2, perMerchantConcurrency: 4, slotWaitMs: 50, pollIntervalMs: 20 },
      { handOff: true },
    );
    for (let i = 0; i < 9; i++) t.keys.add({ key_id: `hang${i}`, webhook_url: `http://127.0.0.1:1/hang${i}` });
    t.keys.add({ key_id: 'other', merchant_id: 2, webhook_url: 'http://127.0.0.1:1/other' });
    const { release, inFlight, maxInFlight } = hangingReceivers(t, (url) => url.includes('/hang'));
    t.worker.start();
    const stuck = Array.from({ length: 3 }, (_, i) => t.ingest(paymentEvent(`m1_${i}`, { charge_id: `m1_${i}` })));
    await until(() => inFlight() === 4);
    await new Promise((r) => setTimeout(r, 100)); // the claim loop has polled the due work meanwhile
    // Merchant 2 still finds slots: its events go out while merchant 1's receivers hang.
    const other = await Promise.all(
      Array.from({ length: 4 }, (_, i) => t.ingest(paymentEvent(`m2_${i}`, { merchant_id: 2, charge_id: `m2_${i}` }))),
    );
    expect(other.map((r) => r!.created)).toEqual([1, 1, 1, 1]);
    await until(() => t.sender.sent.filter((s) => s.url.endsWith('/other')).length === 4, 1_000);
    expect(maxInFlight()).toBe(4);
    release();
    await Promise.all(stuck);
    await until(() => t.sender.sent.length === 27 + 4, 3_000);
    await t.worker.stop();
    expect(maxInFlight()).toBe(4);
  });
});
