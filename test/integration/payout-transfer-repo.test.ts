import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { newPayout } from '../../services/payments/src/payouts/payout';
import { MongoPayoutRepository, payoutModel } from '../../services/payments/src/payouts/payout.repo';
import { testInfraUrls } from '../support/infra';

/**
 * The payout document's transfer state on a real MongoDB-wire server (FerretDB locally): the "transfer
 * begun" write is one conditional update that a document stored before transfers (no field) matches as
 * null and a second attempt does not; the sweep finds begun transfers and reversed payouts' credit steps
 * (docs/decisions.md C24, C25, C27).
 */
describe('payout transfer state in the payouts collection', () => {
  let conn: Connection;
  let repo: MongoPayoutRepository;

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(testInfraUrls().mongoUri, { dbName: `t${randomBytes(3).toString('hex')}_payouts` })
      .asPromise();
    const model = payoutModel(conn);
    await model.init();
    repo = new MongoPayoutRepository(model);
  });
  afterAll(async () => {
    await conn?.dropDatabase();
    await conn?.close();
  });

  const approved = async (reference: string) => {
    const p = newPayout(
      await repo.nextId(),
      2000,
      'live',
      {
        amount: { amount: 2_500, currency: 'USD' },
        reference,
        marketplace_id: 1000,
        payment_gateway: 'card_gateway',
        payout_method: 'connected_account',
        destination: null,
      },
      new Date(),
    );
    await repo.insert({ ...p, reservation: 'held', request_status: 'approved', withdrawal_status: 'payout_pending' });
    return p;
  };
  const transfer = (at: Date) => ({
    account: 'acct_1Sub',
    region: 'EU' as const,
    idempotency_key: 'k',
    transfer_reference: null,
    begun_at: at,
    outcome_note: null,
  });

  it('begins a transfer once, on a document stored without the field too', async () => {
    const p = await approved('po-old');
    // As stored before transfers existed: no transfer fields at all.
    await repo.model.updateOne({ _id: p.payout_key }, { $unset: { transfer_state: 1, transfer: 1 } }).exec();
    expect(await repo.get(2000, 'live', 'po-old')).toMatchObject({ transfer_state: null, transfer: null });
    const at = new Date('2026-12-01T10:00:00Z');
    const expect_ = { withdrawal_status: 'payout_pending' as const, transfer_state: null };
    const set = { transfer_state: 'begun' as const, transfer: transfer(at), updated_at: at };
    const begun = await repo.transition(p.payout_key, expect_, set, []);
    expect(begun).toMatchObject({ transfer_state: 'begun', transfer: { region: 'EU', begun_at: at } });
    expect(await repo.transition(p.payout_key, expect_, set, [])).toBeNull();
    expect((await repo.transfersBegun(10)).map((x) => x.reference)).toEqual(['po-old']);
  });

  it('lists begun transfers oldest change first, and a returning credit as an unfinished wallet step', async () => {
    const a = await approved('po-a');
    const b = await approved('po-b');
    const t1 = new Date('2026-12-01T09:00:00Z');
    const t2 = new Date('2026-12-01T09:30:00Z');
    await repo.transition(b.payout_key, {}, { transfer_state: 'begun', transfer: transfer(t1), updated_at: t1 }, []);
    await repo.transition(a.payout_key, {}, { transfer_state: 'begun', transfer: transfer(t2), updated_at: t2 }, []);
    const begun = (await repo.transfersBegun(10)).map((x) => x.reference);
    expect(begun.indexOf('po-b')).toBeLessThan(begun.indexOf('po-a'));
    await repo.transition(
      a.payout_key,
      { transfer_state: 'begun' },
      { transfer_state: 'reversed', reservation: 'returning' },
      [],
    );
    expect((await repo.unfinished(10)).map((x) => x.reference)).toContain('po-a');
    expect((await repo.transfersBegun(10)).map((x) => x.reference)).not.toContain('po-a');
  });
});
