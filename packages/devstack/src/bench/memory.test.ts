import { heldBytes, largestStepGrowth } from './memory';

const MiB = 1024 * 1024;

describe('bench memory: what counts as growth', () => {
  it('held memory is RSS without the free committed heap, never more than RSS', () => {
    // The gateway's third reading of the 2026-11-27 run: RSS 237, committed 153, in use 56 MiB.
    expect(heldBytes(237 * MiB, { heapUsed: 56 * MiB, heapTotal: 153 * MiB, external: 32 * MiB })).toBe(140 * MiB);
    // A reading where prom-client saw more in use than committed (sampled apart) takes nothing off.
    expect(heldBytes(100 * MiB, { heapUsed: 50 * MiB, heapTotal: 40 * MiB, external: 0 })).toBe(100 * MiB);
  });

  it('a heap that settles passes where one that keeps growing does not', () => {
    expect(largestStepGrowth([100, 110, 95, 108])).toEqual({ growth: (108 - 95) / 95, from: 2 });
    const leaking = largestStepGrowth([100, 115, 132]);
    expect(leaking.growth).toBeGreaterThan(0.1);
    expect(largestStepGrowth([100, 90])).toEqual({ growth: -0.1, from: 0 });
    expect(() => largestStepGrowth([100])).toThrow(/two readings/);
  });
});
