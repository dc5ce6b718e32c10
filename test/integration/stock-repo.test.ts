import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { OWN_STOCK, PRODUCT_DEFAULTS } from '../../services/fx-pricing/src/catalogue/product';
import { catalogueModels } from '../../services/fx-pricing/src/catalogue/catalogue.repo';
import { MongoProductRepository } from '../../services/fx-pricing/src/products/product.repo';
import { MongoStockRepository } from '../../services/fx-pricing/src/stock/stock.repo';
import { testInfraUrls } from '../support/infra';

/**
 * Stock changes on a real MongoDB-wire server (FerretDB locally): conditional `$inc` of a path in a
 * map, holds and returns keyed so a repeat changes nothing, never below zero under concurrency.
 */
describe('stock on the product document', () => {
  let conn: Connection;
  let stock: MongoStockRepository;
  let products: MongoProductRepository;
  let nextId = 1;

  const product = async (levels: { own?: number; variation?: number }) => {
    const id = nextId++;
    const now = new Date();
    await products.insert({
      ...PRODUCT_DEFAULTS,
      id,
      merchant_id: 1000,
      mode: 'sandbox',
      name: 'Mug',
      type: 'physical',
      base_price: { amount: 100, currency: 'NGN' },
      installments_allowed: false,
      stock: levels.own ?? null,
      variations: [{ variation_id: 'var_big', name: 'Big', price: null, stock: levels.variation ?? null }],
      shipping: { fee: { amount: 0, currency: 'NGN' }, countries: ['NG'] },
      created_at: now,
      updated_at: now,
    });
    return id;
  };
  const levels = async (id: number) => (await products.find(1000, id))!;

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(testInfraUrls().mongoUri, { dbName: `t${randomBytes(3).toString('hex')}_stock` })
      .asPromise();
    const { products: model } = catalogueModels(conn);
    await model.init();
    products = new MongoProductRepository(conn, model);
    stock = new MongoStockRepository(model);
  });
  afterAll(async () => {
    await conn?.dropDatabase();
    await conn?.close();
  });

  it('holds exactly the units there are when 30 sessions race for the last 5', async () => {
    const id = await product({ own: 5 });
    const now = new Date();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => stock.hold(id, OWN_STOCK, 1, `cs_${i}`, now)),
    );
    expect(results.filter((r) => r === 'held')).toHaveLength(5);
    expect(results.filter((r) => r === 'short')).toHaveLength(25);
    expect((await levels(id)).stock).toBe(0);
  });

  it('repeats change nothing: a hold, its release, its commit, a return', async () => {
    const id = await product({ variation: 4 });
    const now = new Date();
    expect(await stock.hold(id, 'var_big', 3, 'cs_a', now)).toBe('held');
    expect(await stock.hold(id, 'var_big', 3, 'cs_a', now)).toBe('exists');
    expect((await levels(id)).variations[0]!.stock).toBe(1);
    expect(await stock.release(id, 'cs_a')).toBe(true);
    expect(await stock.release(id, 'cs_a')).toBe(false);
    expect((await levels(id)).variations[0]!.stock).toBe(4);
    expect(await stock.hold(id, 'var_big', 4, 'cs_b', now)).toBe('held');
    await stock.commit(id, 'cs_b');
    await stock.commit(id, 'cs_b');
    expect(await stock.release(id, 'cs_b')).toBe(false);
    const week = { since: new Date(0), max: 1_000 };
    expect(await stock.giveBack(id, 'var_big', 2, 'ord_1', now, week)).toBe(true);
    expect(await stock.giveBack(id, 'var_big', 2, 'ord_1', now, week)).toBe(false);
    expect((await levels(id)).variations[0]!.stock).toBe(2);
    // Old returns are forgotten in the next return's write.
    const later = { since: new Date(Date.now() + 1_000), max: 1_000 };
    expect(await stock.giveBack(id, 'var_big', 1, 'ord_2', new Date(), later)).toBe(true);
    const doc = await conn.collection('products').findOne({ _id: id as never });
    expect(Object.keys(doc!.stock_returns)).toEqual(['ord_2']);
  });

  it('remembers at most `max` returns, forgetting the oldest in the next return’s write', async () => {
    const id = await product({ own: 0 });
    const memory = { since: new Date(0), max: 2 };
    for (const [i, order] of ['ord_a', 'ord_b', 'ord_c'].entries()) {
      expect(await stock.giveBack(id, OWN_STOCK, 1, order, new Date(Date.now() + i), memory)).toBe(true);
    }
    const doc = await conn.collection('products').findOne({ _id: id as never });
    expect(Object.keys(doc!.stock_returns).sort()).toEqual(['ord_b', 'ord_c']);
    expect((await levels(id)).stock).toBe(3);
  });

  it('sets a stock level only if it is still the level read, and reports the keys units are held from', async () => {
    const id = await product({ own: 5 });
    const read = await levels(id);
    expect(await stock.hold(id, OWN_STOCK, 2, 'cs_h', new Date())).toBe('held');
    expect([...(await products.heldKeys(id))]).toEqual([OWN_STOCK]);
    const fields = { ...read, stock: 4 };
    const change = { set: new Map([[OWN_STOCK, 4]]), unset: [], expected: new Map([[OWN_STOCK, 5]]) };
    expect(await products.update(id, read.updated_at, { ...fields }, change, new Date())).toBeNull();
    expect((await levels(id)).stock).toBe(3);
  });
});
