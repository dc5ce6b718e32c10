import type { Connection } from 'mongoose';
import {
  deletionAckEventId,
  MerchantTombstones,
  scopedFilter,
  TOMBSTONE_WINDOW_MS,
  type MerchantDataTarget,
} from './merchant-deletion';

const perMode: MerchantDataTarget = { collection: 'charges', filter: (id) => ({ merchant_id: id }), modeField: 'mode' };
const modeless: MerchantDataTarget = { collection: 'products', filter: (id) => ({ merchant_id: id }), modeField: null };
const scope = (every_mode: boolean) => ({
  deletion_id: 'del_1',
  merchant_id: 1001,
  mode: 'sandbox' as const,
  every_mode,
});

describe('merchant data purge scope', () => {
  it('a one-mode deletion filters by the mode and leaves data without a mode alone', () => {
    expect(scopedFilter(perMode, scope(false))).toEqual({ merchant_id: 1001, mode: 'sandbox' });
    expect(scopedFilter(modeless, scope(false))).toBeNull();
  });

  it('a whole-business deletion takes every mode and the data without one', () => {
    expect(scopedFilter(perMode, scope(true))).toEqual({ merchant_id: 1001 });
    expect(scopedFilter(modeless, scope(true))).toEqual({ merchant_id: 1001 });
  });

  it('acknowledgements have one event id per deletion and service (repeats are the same event)', () => {
    expect(deletionAckEventId('del_1', 'kyc')).toBe(deletionAckEventId('del_1', 'kyc'));
    expect(deletionAckEventId('del_1', 'kyc')).not.toBe(deletionAckEventId('del_1', 'payments'));
  });
});

describe('MerchantTombstones', () => {
  /** A connection whose tombstone collection is an array, counting the reads. */
  function store() {
    const docs: { _id: string; deletion_id: string; deleted_at: Date }[] = [];
    let reads = 0;
    const collection = {
      find: ({ _id }: { _id: { $in: string[] } }) => ({
        toArray: async () => (reads++, docs.filter((d) => _id.$in.includes(d._id))),
      }),
      // MongoDB's upsert: a filter that matches updates; one that does not inserts, and meets the key.
      updateOne: async (
        filter: { _id: string; deletion_id: { $ne: string } },
        update: { $set: { deletion_id: string; deleted_at: Date } },
      ) => {
        const doc = docs.find((d) => d._id === filter._id);
        if (doc && doc.deletion_id !== filter.deletion_id.$ne) return void Object.assign(doc, update.$set);
        if (doc) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000 });
        docs.push({ _id: filter._id, ...update.$set });
      },
    };
    return { conn: { collection: () => collection } as unknown as Connection, reads: () => reads, docs };
  }

  it('a repeat of one deletion keeps its time; a later deletion of the same merchant and mode starts the window again', async () => {
    const s = store();
    let now = Date.parse('2026-11-23T10:00:00Z');
    const tombstones = new MerchantTombstones(s.conn, () => new Date(now));
    await tombstones.record({ deletion_id: 'del_1', merchant_id: 9, mode: 'sandbox', every_mode: false });
    now += 60_000;
    await tombstones.record({ deletion_id: 'del_1', merchant_id: 9, mode: 'sandbox', every_mode: false });
    expect(s.docs).toEqual([
      expect.objectContaining({ _id: '9:sandbox', deletion_id: 'del_1', deleted_at: new Date('2026-11-23T10:00:00Z') }),
    ]);
    now += TOMBSTONE_WINDOW_MS;
    expect(await tombstones.isDeleted(9, 'sandbox')).toBe(false); // the window is over: it may start again
    await tombstones.record({ deletion_id: 'del_2', merchant_id: 9, mode: 'sandbox', every_mode: false });
    expect(s.docs).toEqual([expect.objectContaining({ deletion_id: 'del_2', deleted_at: new Date(now) })]);
    expect(await tombstones.isDeleted(9, 'sandbox')).toBe(true);
  });

  it('keeps a "not deleted" answer for aliveTtlMs, and forgets it when this process records a deletion', async () => {
    const s = store();
    const tombstones = new MerchantTombstones(s.conn, undefined, 60_000);
    expect(await tombstones.isDeleted(7, 'sandbox')).toBe(false);
    expect(await tombstones.isDeleted(7, 'sandbox')).toBe(false);
    expect(s.reads()).toBe(1);
    await tombstones.record({ deletion_id: 'del_7', merchant_id: 7, mode: 'sandbox', every_mode: false });
    expect(await tombstones.isDeleted(7, 'sandbox')).toBe(true);
    expect(s.reads()).toBe(2);
  });

  it('does not keep a "not deleted" answer whose read was in flight when a deletion was recorded', async () => {
    const s = store();
    const tombstones = new MerchantTombstones(s.conn, undefined, 60_000);
    const before = tombstones.isDeleted(8, 'live'); // reads before the tombstone exists
    await tombstones.record({ deletion_id: 'del_8', merchant_id: 8, mode: 'live', every_mode: false });
    expect(await before).toBe(false);
    expect(await tombstones.isDeleted(8, 'live')).toBe(true);
  });

  it('reads every time by default; checks made while a read is in flight share it', async () => {
    const s = store();
    const tombstones = new MerchantTombstones(s.conn);
    await tombstones.isDeleted(7, 'live');
    await tombstones.isDeleted(7, 'live');
    expect(s.reads()).toBe(2);
    await Promise.all([tombstones.isDeleted(7, 'live'), tombstones.isDeleted(7, 'live')]);
    expect(s.reads()).toBe(3);
  });
});
