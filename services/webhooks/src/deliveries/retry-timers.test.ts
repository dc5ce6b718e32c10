import { FakeClock } from './fake-clock.test-util';
import { RetryTimers, type DueRetry } from './retry-timers';

function timersWith() {
  const clock = new FakeClock();
  const free = new Set<string>(['a', 'b']);
  const claimed: string[] = [];
  const timers = new RetryTimers(clock, {
    mayClaim: ({ keyId }) => free.has(keyId),
    claim: (r: DueRetry) => claimed.push(r.deliveryId),
  });
  timers.start();
  const inMs = (ms: number) => new Date(clock.now().getTime() + ms);
  return { clock, free, claimed, timers, inMs };
}

describe('RetryTimers', () => {
  it('claims a retry 5 ms after it falls due on the clock, never before', async () => {
    const { clock, claimed, timers, inMs } = timersWith();
    timers.schedule(inMs(2_000), { deliveryId: 'd1', keyId: 'a', merchantId: 1 });
    timers.schedule(inMs(-1_000), { deliveryId: 'overdue', keyId: 'a', merchantId: 1 });
    await clock.advance(4);
    expect(claimed).toEqual([]);
    await clock.advance(1);
    expect(claimed).toEqual(['overdue']);
    await clock.advance(2_000 - 5 + 4);
    expect(claimed).toEqual(['overdue']);
    await clock.advance(1);
    expect(claimed).toEqual(['overdue', 'd1']);
  });

  it("keeps a due retry until its key has a slot; due ones go oldest first and a full key does not hold back another's", async () => {
    const { clock, free, claimed, timers, inMs } = timersWith();
    free.clear();
    timers.schedule(inMs(10), { deliveryId: 'd1', keyId: 'a', merchantId: 1 });
    timers.schedule(inMs(20), { deliveryId: 'd2', keyId: 'b', merchantId: 1 });
    timers.schedule(inMs(30), { deliveryId: 'd3', keyId: 'a', merchantId: 1 });
    await clock.advance(100);
    expect(claimed).toEqual([]);
    free.add('b');
    timers.serve();
    expect(claimed).toEqual(['d2']);
    free.add('a');
    timers.serve();
    expect(claimed).toEqual(['d2', 'd1', 'd3']);
    timers.serve();
    expect(claimed).toEqual(['d2', 'd1', 'd3']); // each once
  });

  it('stop cancels its timers and drops due retries; nothing is scheduled after it', async () => {
    const { clock, free, claimed, timers, inMs } = timersWith();
    free.clear();
    timers.schedule(inMs(0), { deliveryId: 'waiting', keyId: 'a', merchantId: 1 });
    timers.schedule(inMs(1_000), { deliveryId: 'later', keyId: 'a', merchantId: 1 });
    await clock.advance(10);
    timers.stop();
    expect(clock.pendingTimers).toBe(0);
    free.add('a');
    timers.serve();
    timers.schedule(inMs(10), { deliveryId: 'after stop', keyId: 'a', merchantId: 1 });
    await clock.advance(2_000);
    expect([claimed, clock.pendingTimers]).toEqual([[], 0]);
  });
});
