import type { Connection } from 'mongoose';
import { deletionAckEventId, MerchantTombstones, scopedFilter, type MerchantDataTarget } from './merchant-deletion';

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
    const docs: { _id: string; deleted_at: Date }[] = [];
    let reads = 0;
    const collection = {
      find: ({ _id }: { _id: { $in: string[] } }) => ({
        toArray: async () => (reads++, docs.filter((d) => _id.$in.includes(d._id))),
      }),
      updateOne: async ({ _id }: { _id: string }, update: { $setOnInsert: { deleted_at: Date } }) =>
        void docs.push({ _id, deleted_at: update.$setOnInsert.deleted_at }),
    };
    return { conn: { collection: () => collection } as unknown as Connection, reads: () => reads };
  }

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
