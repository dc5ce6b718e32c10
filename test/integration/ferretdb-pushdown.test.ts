import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { FERRETDB_SQL_PUSHDOWN } from '@ppay/runtime';
import { testInfraUrls } from '../support/infra';

/**
 * FerretDB patch 6 (scripts/ferretdb/patches/0006-sql-pushdown.patch): a find or count carrying FERRETDB_SQL_PUSHDOWN runs in SQL on the local
 * FerretDB. It must answer exactly what the same query answers without the comment (FerretDB's own Go
 * path, or MongoDB): same documents, same order, same counts, for equality and ranges on numbers, strings
 * and dates, nested paths, nulls, ints mixed with doubles, skip and limit, and queries it cannot push down.
 */
describe('FerretDB SQL pushdown (patch 6) answers what the unpushed query answers', () => {
  let conn: Connection;
  const t0 = Date.parse('2026-01-01T00:00:00Z');

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(testInfraUrls().mongoUri, { dbName: `p${randomBytes(3).toString('hex')}_pushdown` })
      .asPromise();
    const col = conn.collection('items');
    await col.createIndex({ m: 1, mode: 1, created_at: 1, _id: 1 });
    await col.createIndex({ m: 1, mode: 1, next: 1, created_at: 1, _id: 1 });
    await col.createIndex({ m: 1, mode: 1, 'amount.amount': 1, created_at: 1, _id: 1 });
    await col.createIndex({ m: 1, mode: 1, ps: 1, created_at: 1, _id: 1 });
    await col.createIndex({ origin: 1 }, { unique: true });
    const docs = Array.from({ length: 400 }, (_, i) => ({
      _id: `item_${String(i).padStart(4, '0')}`,
      origin: `o${i}`,
      m: i % 3 === 0 ? 7 : 12,
      mode: i % 5 === 0 ? 'live' : 'sandbox',
      status: ['active', 'due', 'paused', 'cancelled'][i % 4],
      ps: ['paid', 'failed', 'none'][i % 3],
      // Ints of every length and some doubles: SQL must compare them as numbers, not as text.
      amount: { amount: ((i * 7919) % 100_000) + (i % 7 === 0 ? 0.5 : 0), currency: 'NGN' },
      created_at: new Date(t0 - (i % 50) * 60_000),
      next: i % 9 === 0 ? null : new Date(t0 + ((i * 31) % 500) * 86_400_000),
      ...(i % 4 === 0 ? {} : { checked: i % 4 === 1 ? null : new Date(t0) }),
    }));
    await col.insertMany(docs as never[], { ordered: true });
  });

  afterAll(async () => {
    await conn.dropDatabase();
    await conn.close();
  });

  const filters: Record<string, unknown>[] = [
    { m: 12, mode: 'sandbox' },
    { m: 7, mode: 'live', status: 'due' },
    { m: 99, mode: 'sandbox' },
    { next: { $lte: new Date(t0 + 100 * 86_400_000) } },
    { m: 12, created_at: { $gte: new Date(t0 - 30 * 60_000), $lt: new Date(t0 - 10 * 60_000) } },
    { 'amount.amount': { $gt: 50_000 }, mode: 'live' },
    { ps: { $gte: 'none' } },
    { created_at: new Date(t0 - 3 * 60_000) },
    { next: null, m: 12 }, // null matches null and a missing field
    { checked: null, ps: 'paid' },
    { m: 12, status: { $in: ['due', 'paused'] } }, // not pushed down: the Go path answers
  ];
  const sorts: Record<string, 1 | -1>[] = [
    { created_at: -1, _id: -1 },
    { next: 1, created_at: 1, _id: 1 },
    { next: -1, created_at: -1, _id: -1 },
    { 'amount.amount': 1, created_at: 1, _id: 1 },
    { 'amount.amount': -1, created_at: -1, _id: -1 },
    { ps: 1, created_at: 1, _id: 1 },
  ];

  it('find: the same documents in the same order for every filter, sort, skip and limit', async () => {
    const col = conn.collection('items');
    let compared = 0;
    for (const filter of filters) {
      for (const sort of sorts) {
        for (const [skip, limit] of [
          [0, 20],
          [30, 7],
          [0, 0],
          [1_000, 5],
        ] as const) {
          const plain = await col.find(filter).sort(sort).skip(skip).limit(limit).toArray();
          const pushed = await col
            .find(filter)
            .sort(sort)
            .skip(skip)
            .limit(limit)
            .comment(FERRETDB_SQL_PUSHDOWN)
            .toArray();
          expect({ filter, sort, skip, limit, ids: pushed.map((d) => d._id) }).toEqual({
            filter,
            sort,
            skip,
            limit,
            ids: plain.map((d) => d._id),
          });
          compared += plain.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(1_000); // the matrix is not trivially empty
  });

  it('count: the count command with the comment equals countDocuments', async () => {
    for (const filter of filters) {
      const plain = await conn.collection('items').countDocuments(filter);
      const pushed = await conn.db!.command({ count: 'items', query: filter, comment: FERRETDB_SQL_PUSHDOWN });
      expect({ filter, n: Number(pushed.n) }).toEqual({ filter, n: plain });
    }
    // A capped collection too (find is never pushed down there; its count is).
    const capped = await conn.createCollection('capped_items', { capped: true, size: 1 << 20 });
    await capped.insertMany([{ k: 1 }, { k: 2 }, { k: 2 }, { n: 5 }] as never[]);
    const counted = await conn.db!.command({ count: 'capped_items', query: { k: 2 }, comment: FERRETDB_SQL_PUSHDOWN });
    expect(Number(counted.n)).toBe(2);
  });
});
