/**
 * Coalesces concurrent writes into batches: calls made in the same turn of the event loop as the
 * first, or while a batch is being written, form the next batch, written by one call of `write`
 * (at most `maxBatch` items). `write` returns one result per item, in order; if it throws, every item
 * of that batch rejects with its error. One batch is written at a time. Used where a database (FerretDB
 * above all) costs per command far more than per document.
 */
export class WriteBatcher<I, O> {
  private queue: { item: I; resolve: (result: O) => void; reject: (err: unknown) => void }[] = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 200,
  ) {}

  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    // Let every call already under way join the first batch (without this pause the first went out
    // alone and the rest one write later: batches of 1, 31, 1, 31 in the webhooks bench).
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((p) => p.item));
        batch.forEach((p, i) => p.resolve(results[i]!));
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    this.draining = undefined;
  }
}
