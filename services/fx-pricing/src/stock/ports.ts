/** What a product's return memory keeps: returns since `since`, at most `max` of them. */
export interface ReturnMemory {
  since: Date;
  max: number;
}

/**
 * Stock holds and returns on a product's document (`stock_levels`, `stock_holds`, `stock_returns`):
 * every change is one conditional write, keyed so a repeat changes nothing.
 */
export interface StockRepository {
  /**
   * levels[key] -= quantity and holds[holdId] = {key, quantity}, iff levels[key] ≥ quantity and the hold
   * does not exist yet: `held`; the hold exists already (a repeat): `exists`; too few units: `short`.
   */
  hold(
    productId: number,
    key: string,
    quantity: number,
    holdId: string,
    now: Date,
  ): Promise<'held' | 'exists' | 'short'>;
  /** Gives a hold's units back and removes it, iff it still exists: false when it did not. */
  release(productId: number, holdId: string): Promise<boolean>;
  /** Removes a hold whose units were sold (they stay taken); idempotent. */
  commit(productId: number, holdId: string): Promise<void>;
  /**
   * levels[key] += quantity once per `returnId` (recorded in `stock_returns` with its time; the records
   * `returnsToForget` picks for `memory` are dropped in the same write, so the map only holds recent
   * returns, a bounded number of them). false when the level is unlimited (nothing to give back) or the
   * return was already made.
   */
  giveBack(
    productId: number,
    key: string,
    quantity: number,
    returnId: string,
    now: Date,
    memory: ReturnMemory,
  ): Promise<boolean>;
}
