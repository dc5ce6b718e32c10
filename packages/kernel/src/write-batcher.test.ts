import { WriteBatcher } from './write-batcher';

describe('WriteBatcher', () => {
  it('writes calls of one turn together, and those made during a write as the next batch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const batcher = new WriteBatcher<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await gate;
      return items.map((n) => n * 10);
    }, 3);
    const first = [1, 2].map((n) => batcher.add(n));
    await new Promise((r) => setImmediate(r));
    const later = [3, 4, 5, 6].map((n) => batcher.add(n));
    release();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1, 2], [3, 4, 5], [6]]); // at most maxBatch each
  });

  it('rejects every call of a batch whose write fails, and goes on with the next', async () => {
    let calls = 0;
    const batcher = new WriteBatcher<string, string>(async (items) => {
      if (calls++ === 0) throw new Error('down');
      return items;
    });
    const failed = await Promise.allSettled([batcher.add('a'), batcher.add('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await batcher.add('c')).toBe('c');
  });
});
