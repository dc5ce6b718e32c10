import { OWN_STOCK, PRODUCT_DEFAULTS, type ProductRecord } from '../catalogue/product';
import type { ReturnMemory, StockRepository } from './ports';
import { RETURN_MEMORY_MAX, RETURN_MEMORY_MS, returnsToForget, StockService, type StockRequest } from './stock';

/** Stock on products in memory, with the Mongo repository's conditions. */
class MemoryStock implements StockRepository {
  levels = new Map<string, number>();
  holds = new Map<string, { key: string; quantity: number }>();
  returns = new Map<string, Date>();
  async hold(_p: number, key: string, quantity: number, holdId: string) {
    if (this.holds.has(holdId)) return 'exists' as const;
    const level = this.levels.get(key) ?? 0;
    if (level < quantity) return 'short' as const;
    await Promise.resolve(); // another call may interleave here, as with a database
    if ((this.levels.get(key) ?? 0) < quantity || this.holds.has(holdId))
      return this.holds.has(holdId) ? 'exists' : 'short';
    this.levels.set(key, (this.levels.get(key) ?? 0) - quantity);
    this.holds.set(holdId, { key, quantity });
    return 'held' as const;
  }
  async release(_p: number, holdId: string) {
    const h = this.holds.get(holdId);
    if (!h) return false;
    this.holds.delete(holdId);
    this.levels.set(h.key, (this.levels.get(h.key) ?? 0) + h.quantity);
    return true;
  }
  async commit(_p: number, holdId: string) {
    this.holds.delete(holdId);
  }
  async giveBack(_p: number, key: string, quantity: number, returnId: string, now: Date, memory: ReturnMemory) {
    if (!this.levels.has(key) || this.returns.has(returnId)) return false;
    for (const id of returnsToForget(this.returns, memory)) this.returns.delete(id);
    this.levels.set(key, this.levels.get(key)! + quantity);
    this.returns.set(returnId, now);
    return true;
  }
}

const mug: ProductRecord = {
  ...PRODUCT_DEFAULTS,
  id: 7,
  merchant_id: 1000,
  mode: 'sandbox',
  name: 'Mug',
  type: 'physical',
  base_price: { amount: 100, currency: 'NGN' },
  installments_allowed: false,
  stock: 5,
  variations: [{ variation_id: 'var_big', name: 'Big', price: null, stock: null }],
  created_at: new Date(0),
  updated_at: new Date(0),
};

function world(product: ProductRecord = mug) {
  const stock = new MemoryStock();
  stock.levels.set(OWN_STOCK, 5);
  let clock = Date.parse('2026-11-01T10:00:00Z');
  const service = new StockService(
    { products: { find: async (m, id) => (m === product.merchant_id && id === product.id ? product : null) }, stock },
    () => new Date(clock),
  );
  return { stock, service, advance: (ms: number) => (clock += ms) };
}

const req = (quantity: number, changes: Partial<StockRequest> = {}): StockRequest => ({
  merchant_id: 1000,
  mode: 'sandbox',
  product_id: 7,
  variation_id: null,
  quantity,
  ...changes,
});

describe('StockService', () => {
  it('never sells more than it has: 50 sessions racing for the last 5 units hold exactly 5', async () => {
    const { stock, service } = world();
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => service.hold(req(1), `cs_${i}`)));
    expect(outcomes.filter((o) => o === 'held')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'sold_out')).toHaveLength(45);
    expect(stock.levels.get(OWN_STOCK)).toBe(0);
  });

  it('holds once per session, gives released units back, keeps committed ones taken', async () => {
    const { stock, service } = world();
    expect(await service.hold(req(2), 'cs_a')).toBe('held');
    expect(await service.hold(req(2), 'cs_a')).toBe('held'); // a retried attempt on the same session
    expect(stock.levels.get(OWN_STOCK)).toBe(3);
    expect(await service.release(7, 'cs_a')).toBe(true);
    expect(await service.release(7, 'cs_a')).toBe(false);
    expect(stock.levels.get(OWN_STOCK)).toBe(5);
    expect(await service.hold(req(3), 'cs_b')).toBe('held');
    await service.commit(7, 'cs_b');
    expect(await service.release(7, 'cs_b')).toBe(false); // sold: nothing to give back
    expect(stock.levels.get(OWN_STOCK)).toBe(2);
  });

  it('answers unlimited for a variation or product without a stock level, and refuses unknown ones', async () => {
    const { service } = world();
    expect(await service.hold(req(100, { variation_id: 'var_big' }), 'cs_c')).toBe('unlimited');
    await expect(service.hold(req(1, { variation_id: 'var_nope' }), 'cs_d')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'variation_id',
    });
    await expect(service.hold(req(1, { mode: 'live' }), 'cs_e')).rejects.toMatchObject({ code: 'PRODUCT_NOT_FOUND' });
    await expect(service.hold(req(0), 'cs_f')).rejects.toMatchObject({ param: 'quantity' });
    const ebook = world({ ...mug, type: 'digital', stock: null });
    expect(await ebook.service.hold(req(1), 'cs_g')).toBe('unlimited');
  });

  it('gives a cancelled order’s units back once, remembering returns for a week', async () => {
    const { stock, service, advance } = world();
    expect(await service.giveBack(req(2), 'ord_1')).toBe(true);
    expect(await service.giveBack(req(2), 'ord_1')).toBe(false);
    expect(stock.levels.get(OWN_STOCK)).toBe(7);
    advance(RETURN_MEMORY_MS + 1);
    await service.giveBack(req(1), 'ord_2');
    expect([...stock.returns.keys()]).toEqual(['ord_2']);
    expect(await service.giveBack(req(1, { variation_id: 'var_big' }), 'ord_3')).toBe(false); // unlimited
  });

  it('remembers at most RETURN_MEMORY_MAX returns per product, forgetting the oldest first', async () => {
    const { stock, service, advance } = world();
    for (let i = 0; i < RETURN_MEMORY_MAX + 5; i++) {
      advance(1);
      expect(await service.giveBack(req(1), `ord_${i}`)).toBe(true);
    }
    expect(stock.returns.size).toBe(RETURN_MEMORY_MAX);
    expect([stock.returns.has('ord_4'), stock.returns.has('ord_5')]).toEqual([false, true]);
    expect(await service.giveBack(req(1), `ord_${RETURN_MEMORY_MAX + 4}`)).toBe(false); // a recent repeat: once
    expect(stock.levels.get(OWN_STOCK)).toBe(5 + RETURN_MEMORY_MAX + 5);
  });

  it('picks the returns to forget: stale ones, then the oldest beyond the cap, ties by id', () => {
    const at = (ms: number) => new Date(Date.parse('2026-11-01T00:00:00Z') + ms);
    const returns = new Map([
      ['ord_c', at(20)],
      ['ord_b', at(10)],
      ['ord_a', at(10)],
      ['ord_old', at(0)],
    ]);
    expect(returnsToForget(returns, { since: at(5), max: 10 })).toEqual(['ord_old']);
    expect(returnsToForget(returns, { since: at(5), max: 2 })).toEqual(['ord_old', 'ord_a', 'ord_b']);
    expect(returnsToForget(returns, { since: at(0), max: 4 })).toEqual(['ord_old']);
  });

  it('never uses a request string as a stock key: an unknown variation or an unsafe hold id', async () => {
    const { stock, service } = world();
    stock.levels.set('constructor', 1);
    expect(await service.giveBack(req(1, { variation_id: 'constructor' }), 'ord_1')).toBe(false);
    expect(stock.levels.get('constructor')).toBe(1);
    for (const id of ['a.b', '$where', '__proto__']) {
      await expect(service.hold(req(1), id)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', param: 'hold_id' });
      await expect(service.giveBack(req(1), id)).rejects.toMatchObject({ param: 'hold_id' });
    }
    expect(stock.levels.get(OWN_STOCK)).toBe(5);
  });
});
