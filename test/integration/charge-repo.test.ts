import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { SUBJECTS } from '@ppay/kernel';
import type { ChargeRecord, CustomerDetails } from '../../services/payments/src/charges/charge';
import { testCharge, testFees } from '../../services/payments/src/charges/charge.test-util';
import { newRefund } from '../../services/payments/src/refunds/refund';
import { chargeDocumentOf, chargeModel, MongoChargeRepository } from '../../services/payments/src/charges/charge.repo';
import { chargeListKeysJob } from '../../services/payments/src/charges/charge-lists.repo';
import { MongoLiveChargeLookups } from '../../services/payments/src/charges/live-charge-lookups.repo';
import { chargeListKey } from '../../services/payments/src/charges/charge-queries';
import { testInfraUrls } from '../support/infra';

/**
 * The create path finds a charge by Idempotency-Key or reference on the charges' own unique fields (in
 * SQL over an index on the local FerretDB), and the unique indexes decide which of two racing creates
 * holds a key: the loser's insert is refused and its lookup finds the holder.
 */
describe('charge repository: lookup by Idempotency-Key and reference, lean inserts, sweeps', () => {
  let conn: Connection;
  let repo: MongoChargeRepository;
  let nextMerchant = 7000;

  const charge = (merchantId: number, keys: { key?: string; reference?: string }, status = 'initializing') =>
    testCharge(
      {
        merchant_id: merchantId,
        reference: keys.reference ?? null,
        idempotency_key: keys.key ?? null,
        status: status as ChargeRecord['status'],
        processor_group: 'card',
        payment_gateway: 'stripe',
        amount: { amount: 1000, currency: 'USD' },
        total: { amount: 1000, currency: 'USD' },
        fee_details: testFees('USD', 1000, 0),
        customer: { email: 'a@example.com', name: null, country: null } as unknown as CustomerDetails,
      },
      new Date(),
    );

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(testInfraUrls().mongoUri, { dbName: `t${randomBytes(3).toString('hex')}_chargekeys` })
      .asPromise();
    repo = new MongoChargeRepository(chargeModel(conn));
    await repo.model.init();
  });
  afterAll(async () => {
    await conn?.dropDatabase();
    await conn?.close();
  });

  it('a new charge is inserted lean: the document is what mongoose would store (every path, valid, nothing added)', async () => {
    const c = charge(nextMerchant++, { key: 'whole', reference: 'whole-ref' });
    const doc = chargeDocumentOf(c);
    const hydrated = new repo.model(doc);
    expect(hydrated.validateSync()).toBeUndefined();
    expect(Object.keys(hydrated.toObject()).sort()).toEqual(Object.keys(doc).sort());
    expect(await repo.insert(c)).toBe(true);
    const stored = await repo.model.findById(c.charge_id).lean();
    expect(stored).toEqual(hydrated.toObject());
  });

  it('stores a charge’s money as charges always were (minor units of its currency) and reads it as Money', async () => {
    const m = nextMerchant++;
    const usd = (amount: number) => ({ amount, currency: 'USD' });
    const c = charge(m, {}, 'succeeded');
    expect(await repo.insert(c)).toBe(true);
    const refund = {
      ...newRefund({ idempotency_key: null, request_fingerprint: 'f', amount: usd(400), reason: null }, new Date()),
      status: 'succeeded' as const,
      refunded_before: usd(0),
    };
    const change = { refunds: [refund], amount_refunded: usd(400), refunded: false };
    expect(await repo.writeRefunds(c.charge_id, 0, change, null, new Date())).toMatchObject({
      fee_details: testFees('USD', 1000, 0),
      amount_refunded: usd(400),
      refunds: [{ amount: usd(400), refunded_before: usd(0) }],
    });
    expect(await repo.model.findById(c.charge_id).lean()).toMatchObject({
      fee_details: { base_amount: 1000, transaction_fee: 0, total_amount: 1000, customer_pays_fees: false },
      amount_refunded: 400,
      refunds: [{ amount: usd(400), refunded_before: 0 }],
    });
    // A charge stored before refunds existed has none of their fields: nothing refunded, in its currency.
    const refundFields = { refunds: '', amount_refunded: '', refunded: '', refund_version: '' };
    await repo.model.updateOne({ _id: c.charge_id }, { $unset: refundFields });
    expect(await repo.findForMerchant(m, 'sandbox', c.charge_id)).toMatchObject({
      amount_refunded: usd(0),
      refunds: [],
      refunded: false,
    });
  });

  it('finds a charge by its key and by its reference; nothing for keys no charge holds', async () => {
    const m = nextMerchant++;
    const c = charge(m, { key: 'k1', reference: 'order-1' });
    expect(await repo.insert(c)).toBe(true);
    expect((await repo.findByKeys(m, 'sandbox', { idempotencyKey: 'k1', reference: null }))?.charge_id).toBe(
      c.charge_id,
    );
    expect((await repo.findByKeys(m, 'sandbox', { idempotencyKey: 'other', reference: 'order-1' }))?.charge_id).toBe(
      c.charge_id,
    );
    expect(await repo.findByKeys(m, 'sandbox', { idempotencyKey: 'k2', reference: 'order-2' })).toBeNull();
    // Another merchant and the other mode hold nothing.
    expect(await repo.findByKeys(m + 1000, 'sandbox', { idempotencyKey: 'k1', reference: null })).toBeNull();
    expect(await repo.findByKeys(m, 'live', { idempotencyKey: 'k1', reference: 'order-1' })).toBeNull();
  });

  it('a create that lost the race for a key or a reference is refused; the lookup finds the holder', async () => {
    const m = nextMerchant++;
    const winner = charge(m, { key: 'race', reference: 'race-ref' });
    expect(await repo.insert(winner)).toBe(true);
    expect(await repo.insert(charge(m, { key: 'race' }))).toBe(false);
    expect(await repo.insert(charge(m, { key: 'other', reference: 'race-ref' }))).toBe(false);
    expect((await repo.findByKeys(m, 'sandbox', { idempotencyKey: 'race', reference: null }))?.charge_id).toBe(
      winner.charge_id,
    );
    expect(await repo.model.countDocuments({ merchant_id: m })).toBe(1);
    // The same key in the other mode, or of another merchant, is another charge's to take.
    expect(await repo.insert({ ...charge(m, { key: 'race' }), mode: 'live' })).toBe(true);
    expect(await repo.insert(charge(m + 1000, { key: 'race' }))).toBe(true);
  });

  it('a key is found among many charges of the merchant, the key before the reference', async () => {
    const m = nextMerchant++;
    for (let i = 0; i < 30; i++) expect(await repo.insert(charge(m, { key: `k${i}`, reference: `r${i}` }))).toBe(true);
    const byKey = await repo.findByKeys(m, 'sandbox', { idempotencyKey: 'k7', reference: 'r8' });
    expect(byKey?.idempotency_key).toBe('k7');
    const byReference = await repo.findByKeys(m, 'sandbox', { idempotencyKey: 'unused', reference: 'r8' });
    expect(byReference?.reference).toBe('r8');
  });

  it('a released reference no longer leads to its failed charge, and a new charge can take it', async () => {
    const m = nextMerchant++;
    const failed = charge(m, { reference: 'reuse-me' }, 'failed');
    expect(await repo.insert(failed)).toBe(true);
    expect(await repo.releaseReference(failed.charge_id, 'reuse-me')).toBe(true);
    expect(await repo.findByKeys(m, 'sandbox', { idempotencyKey: null, reference: 'reuse-me' })).toBeNull();
    const next = charge(m, { reference: 'reuse-me' });
    expect(await repo.insert(next)).toBe(true);
    expect((await repo.findByKeys(m, 'sandbox', { idempotencyKey: null, reference: 'reuse-me' }))?.charge_id).toBe(
      next.charge_id,
    );
  });

  /**
   * The 5 s sweeps run in SQL on the local FerretDB (FERRETDB_SQL_PUSHDOWN): they must find exactly
   * what the unpushed query finds, whatever else the collection holds (fresh, other statuses, null
   * and missing fields).
   */
  it('the abandoned-charge sweep fails exactly the charges stuck initializing since before the cut-off', async () => {
    const m = nextMerchant++;
    const cut = new Date(Date.now() - 60_000);
    const at = (c: ChargeRecord, updated: Date) => ({ ...c, updated_at: updated });
    const stuck = at(charge(m, {}), new Date(cut.getTime() - 1));
    const onTheCut = at(charge(m, {}), cut);
    const fresh = at(charge(m, {}), new Date());
    const oldPending = at(charge(m, {}, 'pending'), new Date(cut.getTime() - 5_000));
    for (const c of [stuck, onTheCut, fresh, oldPending]) expect(await repo.insert(c)).toBe(true);

    expect(await repo.abandonStale(cut, new Date())).toBe(2);
    const status = async (c: ChargeRecord) => (await repo.model.findById(c.charge_id).lean())?.status;
    expect(await Promise.all([stuck, onTheCut, fresh, oldPending].map(status))).toEqual([
      'failed',
      'failed',
      'initializing',
      'pending',
    ]);
    expect(await repo.abandonStale(cut, new Date())).toBe(0);
  });

  it('the pending-refund sweep returns the charges whose refunds wait since before the cut-off, oldest first', async () => {
    const m = nextMerchant++;
    const cut = new Date(Date.now() + 3_600_000); // after every other test's charges, so only these can match
    const since = (offsetMs: number | null | undefined) => {
      const c = charge(m, {}, 'succeeded');
      return {
        c,
        since: offsetMs === undefined ? undefined : offsetMs === null ? null : new Date(cut.getTime() + offsetMs),
      };
    };
    const rows = [since(-10_000), since(-20_000), since(0), since(5_000), since(null), since(undefined)];
    for (const { c, since: s } of rows) {
      expect(await repo.insert(c)).toBe(true);
      if (s === undefined) await repo.model.updateOne({ _id: c.charge_id }, { $unset: { refund_pending_since: '' } });
      else await repo.model.updateOne({ _id: c.charge_id }, { $set: { refund_pending_since: s } });
    }
    const found = (await repo.withStalePendingRefunds(cut, 50)).filter((c) => c.merchant_id === m);
    expect(found.map((c) => c.charge_id)).toEqual([rows[1]!.c.charge_id, rows[0]!.c.charge_id, rows[2]!.c.charge_id]);
  });

  it('the live-charge reconciler reads only live charges due, oldest first; completing one takes it off', async () => {
    const m = nextMerchant++;
    const lookups = new MongoLiveChargeLookups(repo.model);
    // Long ago, so that no other case's charge is in range.
    const at = (minutes: number) => new Date(Date.UTC(2001, 0, 1, 0, minutes));
    const made = (mode: 'live' | 'sandbox', minutes: number) => ({
      ...charge(m, {}, 'pending'),
      mode,
      processor_reference: `pi_${mode}_${minutes}`,
      created_at: at(minutes),
    });
    const [a, b, young, sandbox] = [made('live', 2), made('live', 1), made('live', 30), made('sandbox', 0)];
    for (const c of [a, b, young, sandbox]) expect(await repo.insert(c)).toBe(true);
    const ids = async (before: Date, limit = 10) => (await lookups.due(before, limit)).map((c) => c.charge_id);
    expect(await ids(at(10))).toEqual([b.charge_id, a.charge_id]);
    expect(await ids(at(10), 1)).toEqual([b.charge_id]);
    expect(await lookups.countStale(at(10))).toBe(2);
    // Asked at minute 20: due again only after it; never again once completed or given up.
    await lookups.schedule(b.charge_id, at(20));
    expect(await ids(at(10))).toEqual([a.charge_id]);
    const done = await repo.complete(a.charge_id, 'succeeded', null, new Date(), {
      event_id: `evt_${a.charge_id}`,
      subject: SUBJECTS.paymentSucceeded,
      occurred_at: new Date(),
      data: {},
    });
    expect(done?.status).toBe('succeeded');
    await lookups.schedule(young.charge_id, null);
    expect(await ids(at(60))).toEqual([b.charge_id]);
    expect(await lookups.countStale(at(60))).toBe(1);
  });

  it('completing records the payment an off-session answer names, in that write; none given keeps the one recorded', async () => {
    const offSession = {
      ...charge(nextMerchant++, { key: 'off-1', reference: 'off-1' }, 'pending'),
      mode: 'live' as const,
    };
    const initialised = { ...charge(nextMerchant++, {}, 'pending'), processor_reference: 'pi_initialised' };
    for (const c of [offSession, initialised]) expect(await repo.insert(c)).toBe(true);
    const event = (id: string) => ({
      event_id: `evt_${id}`,
      subject: SUBJECTS.paymentSucceeded,
      occurred_at: new Date(),
      data: {},
    });
    const done = await repo.complete(
      offSession.charge_id,
      'failed',
      'authentication_required',
      new Date(),
      event('a'),
      'pi_off',
    );
    expect(done).toMatchObject({
      status: 'failed',
      failure_reason: 'authentication_required',
      processor_reference: 'pi_off',
    });
    expect((await repo.findLiveByProcessorReference('pi_off'))?.charge_id).toBe(offSession.charge_id);
    const kept = await repo.complete(initialised.charge_id, 'succeeded', null, new Date(), event('b'));
    expect(kept?.processor_reference).toBe('pi_initialised');
    // Final: a late answer naming another payment changes nothing.
    expect(await repo.complete(offSession.charge_id, 'succeeded', null, new Date(), event('c'), 'pi_other')).toBeNull();
    expect((await repo.model.findById(offSession.charge_id).lean())?.processor_reference).toBe('pi_off');
  });

  it('gives charges stored before lists their list key, then stops looking (no full scans once done)', async () => {
    const old = [charge(nextMerchant++, {}), charge(nextMerchant++, {})];
    for (const c of old) {
      expect(await repo.insert(c)).toBe(true);
      await repo.model.updateOne({ _id: c.charge_id }, { $set: { list_key: null } });
    }
    const job = chargeListKeysJob(repo.model);
    // (Earlier cases may have stored keyless charges of their own: one pass takes up to 500.)
    expect(await job()).toBeGreaterThanOrEqual(2);
    for (const c of old) {
      const stored = await repo.model.findById(c.charge_id).lean();
      expect(stored!.list_key).toBe(chargeListKey(c));
    }
    expect(await job()).toBe(0);
    // Done: a later keyless charge (none is stored so) is not looked for again by this process.
    const late = charge(nextMerchant++, {});
    expect(await repo.insert(late)).toBe(true);
    await repo.model.updateOne({ _id: late.charge_id }, { $set: { list_key: null } });
    expect(await job()).toBe(0);
  });
});
