import { rejectionOf } from '../errors.test-util';
import { newDispute } from './dispute';
import { disputeWorld } from './disputes.test-util';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });

describe('DisputeOpener racing the discard of an opening dispute', () => {
  /** A world whose charge has an opening dispute another opener inserted and has not held yet. */
  async function withOpening() {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    const other = () =>
      newDispute(
        {
          charge_id: chargeId,
          merchant_id: 1000,
          sub_merchant_id: null,
          mode: 'sandbox',
          amount: ngn(500_000),
          reason: 'general',
          source: 'processor',
        },
        w.now(),
      );
    const first = other();
    w.disputes.docs.set(first.dispute_id, first);
    const open = () =>
      w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
    return { w, chargeId, other, first, open };
  }

  it('inserts again when the opening dispute that refused it is discarded before it is read', async () => {
    const { w, chargeId, first, open } = await withOpening();
    let raced = 0;
    w.disputes.afterDuplicate = async (taken) => {
      raced++;
      expect(await w.disputes.discardOpening(taken.dispute_id)).toBe(true);
    };
    const d = await open();
    expect(raced).toBe(1);
    expect(d).toMatchObject({ status: 'needs_response', charge_id: chargeId, amount: ngn(500_000) });
    expect(d.dispute_id).not.toBe(first.dispute_id);
    expect([...w.disputes.docs.keys()]).toEqual([d.dispute_id]);
    expect((await w.charges.findForMerchant(1000, 'sandbox', chargeId))!.dispute).toMatchObject({
      dispute_id: d.dispute_id,
      status: 'open',
    });
    expect(w.subjects()).toEqual(['created', 'funds_withdrawn']);
  });

  it('answers 409 CONFLICT, writing nothing of its own, when the charge keeps changing dispute under it', async () => {
    const { w, chargeId, other, open } = await withOpening();
    let raced = 0;
    w.disputes.afterDuplicate = async (taken) => {
      raced++;
      await w.disputes.discardOpening(taken.dispute_id);
    };
    // Yet another opener inserts just before each new try of this one.
    const insert = w.disputes.insertOrGetForCharge.bind(w.disputes);
    w.disputes.insertOrGetForCharge = async (d) => {
      if (raced > 0) {
        const next = other();
        w.disputes.docs.set(next.dispute_id, next);
      }
      return insert(d);
    };
    const err = await rejectionOf(open());
    expect([err.code, err.param, err.httpStatus]).toEqual(['CONFLICT', 'charge_id', 409]);
    expect(raced).toBe(3);
    // Its draft was never stored, nor a hold: a retry of the request starts afresh.
    expect(w.disputes.docs.size).toBe(0);
    expect(w.disputes.events).toEqual([]);
    expect((await w.charges.findForMerchant(1000, 'sandbox', chargeId))!.dispute).toBeNull();
  });
});
