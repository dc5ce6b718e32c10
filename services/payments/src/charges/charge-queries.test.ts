import { rejectionOf } from '../errors.test-util';
import { MemoryCharges } from '../memory-ports.test-util';
import { testCharge } from './charge.test-util';
import { ChargeQueries } from './charge-queries';
import { chargeResource } from './charge-resource';

const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 10, 0, s));

async function world() {
  const charges = new MemoryCharges();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const c = testCharge(
      { charge_id: `ch_${i}`, status: i === 2 ? 'failed' : 'succeeded', reference: `order-${i}` },
      at(i),
    );
    await charges.insert(c);
    ids.push(c.charge_id);
  }
  await charges.insert(testCharge({ charge_id: 'ch_other', merchant_id: 3000 }, at(9)));
  await charges.insert(testCharge({ charge_id: 'ch_live', mode: 'live', reference: 'live-1' }, at(9)));
  return { charges, ids, queries: new ChargeQueries(charges) };
}

describe('ChargeQueries', () => {
  it('pages a merchant’s charges newest first in its mode, with a cursor, and filters', async () => {
    const { queries, ids } = await world();
    const first = await queries.list(1000, 'sandbox', { limit: 2 });
    expect(first.charges.map((c) => c.charge_id)).toEqual([ids[4], ids[3]]);
    const second = await queries.list(1000, 'sandbox', { limit: 2, cursor: first.next_cursor! });
    expect(second.charges.map((c) => c.charge_id)).toEqual([ids[2], ids[1]]);
    const last = await queries.list(1000, 'sandbox', { limit: 2, cursor: second.next_cursor! });
    expect([last.charges.map((c) => c.charge_id), last.has_more, last.next_cursor]).toEqual([[ids[0]], false, null]);
    expect((await queries.list(1000, 'sandbox', { status: 'failed' })).charges.map((c) => c.charge_id)).toEqual([
      ids[2],
    ]);
    expect((await queries.list(1000, 'sandbox', { reference: 'order-3' })).charges.map((c) => c.charge_id)).toEqual([
      ids[3],
    ]);
    const window = await queries.list(1000, 'sandbox', { from: at(1), to: at(3) });
    expect(window.charges.map((c) => c.charge_id)).toEqual([ids[2], ids[1]]);
  });

  it('refuses a cursor that is not one of its own, and hides other merchants’ and modes’ charges', async () => {
    const { queries } = await world();
    const disputeCursor = Buffer.from('2026-11-01T10:00:00.000Z|dp_1').toString('base64url');
    for (const cursor of [disputeCursor, 'garbage', 'x'.repeat(300)]) {
      expect((await rejectionOf(queries.list(1000, 'sandbox', { cursor }))).code).toBe('INVALID_CURSOR');
    }
    expect((await rejectionOf(queries.get(1000, 'sandbox', 'ch_other'))).code).toBe('CHARGE_NOT_FOUND');
    expect((await rejectionOf(queries.get(1000, 'sandbox', 'ch_live'))).code).toBe('CHARGE_NOT_FOUND');
    expect((await queries.get(1000, 'live', 'ch_live')).charge_id).toBe('ch_live');
  });

  it('reads as the charge resource: its amounts, refunds with their charge and its dispute hold', async () => {
    const charge = testCharge({ charge_id: 'ch_9', reference: 'r', dispute: null });
    const resource = chargeResource(charge);
    expect(resource).toMatchObject({
      charge_id: 'ch_9',
      reference: 'r',
      amount: { amount: 10_000, currency: 'NGN' },
      customer_email: 'c@example.com',
      is_live: false,
      refunds: [],
      dispute: null,
      amount_disputed: { amount: 0, currency: 'NGN' },
    });
  });

  it("answers the processor's id of the payment as gateway_reference, null before the processor answers", () => {
    const live = testCharge({ charge_id: 'ch_l', mode: 'live', processor_reference: 'pi_3Live' });
    expect(chargeResource(live).gateway_reference).toBe('pi_3Live');
    const waiting = testCharge({ charge_id: 'ch_w', status: 'initializing', processor_reference: null });
    expect(chargeResource(waiting).gateway_reference).toBeNull();
  });
});
