import { RecentResponses } from './recent-responses';

describe('RecentResponses', () => {
  it('counts responses per key over a sliding window', () => {
    let now = 0;
    const r = new RecentResponses(1_000, () => now);
    for (let i = 0; i < 10; i++) r.responded('a');
    r.responded('b');
    expect([r.count('a'), r.count('b'), r.count('c')]).toEqual([10, 1, 0]);
    now = 1_500; // half of the first window still overlaps the last second
    r.responded('a');
    expect(r.count('a')).toBe(6);
    now = 2_000;
    expect(r.count('a')).toBe(1); // the first window is behind; the second holds one
    now = 3_000;
    expect(r.count('a')).toBe(0); // nothing for a whole window
    now = 10_000;
    expect(r.count('a')).toBe(0);
  });

  it('forgets keys idle for two windows once it tracks its maximum', () => {
    let now = 0;
    const r = new RecentResponses(1_000, () => now, 2);
    r.responded('a');
    r.responded('b');
    now = 2_500;
    r.responded('c'); // full: a and b are idle and go
    r.responded('d');
    expect([r.count('a'), r.count('b'), r.count('c'), r.count('d')]).toEqual([0, 0, 1, 1]);
  });
});
