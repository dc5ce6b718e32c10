import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { money } from '@ppay/kernel';
import { testFees } from '../../services/payments/src/charges/charge.test-util';
import { MongoSessionRepository, sessionModel } from '../../services/payments/src/checkout/session.repo';
import { attemptCharge, newSession, type SessionRecord } from '../../services/payments/src/checkout/session';
import { testInfraUrls } from '../support/infra';

/**
 * The session writes of a live physical session on the local FerretDB (docs/decisions.md, S32–S35):
 * stored before its processor's session, opened under its attempt claim, closed by the processor's
 * events with its units (each one conditional write), deleted when sold out, found by the lost-event net.
 */
describe('session repository: live physical sessions', () => {
  let conn: Connection;
  let repo: MongoSessionRepository;
  const at = new Date('2026-11-01T10:00:00Z');

  const unopened = (): SessionRecord =>
    newSession(
      {
        session_id: `cs_${randomBytes(8).toString('hex')}`,
        gateway_session_id: '',
        payment_url: null,
        merchant_id: 1000,
        mode: 'live',
        processor_group: 'card',
        payment_gateway: 'card_gateway',
        product: { id: 9, name: 'Shirt', type: 'physical' },
        customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi', country: 'NG' },
        success_url: '',
        cancel_url: '',
        subscription_frequency_key: null,
        trial_days: null,
        installments: null,
        goods: {
          product_id: 9,
          variation: null,
          quantity: 1,
          unit_price: money(600, 'USD'),
          shipping_fee: money(100, 'USD'),
          ships_to: ['NG'],
        },
        sub_merchant_id: null,
        split: null,
        metadata: {},
        expires_at: new Date(at.getTime() + 30 * 60_000),
        idempotency_key: null,
        fee: testFees('USD', 700, 50),
      },
      at,
    );
  const address = {
    name: 'Ada Obi',
    line1: '1 Marina',
    line2: null,
    city: 'Lagos',
    state: null,
    postal_code: null,
    country: 'NG',
    phone: null,
  };

  /** Stored, claimed and opened at the processor: its units `held`. */
  async function opened(): Promise<SessionRecord> {
    const s = unopened();
    await repo.insertOrGetByIdempotencyKey(s);
    expect(await repo.claimAttempt(s.session_id, 'att_1', at, new Date(at.getTime() - 30_000))).not.toBeNull();
    const expiresAt = new Date(at.getTime() + 31 * 60_000);
    const open = {
      gateway_session_id: `cs_test_${s.session_id}`,
      payment_url: 'https://pay.example/x',
      expires_at: expiresAt,
    };
    expect(await repo.openAtProcessor(s.session_id, 'att_other', open, at)).toBeNull(); // not our claim
    const saved = (await repo.openAtProcessor(s.session_id, 'att_1', open, at))!;
    expect(saved).toMatchObject({ ...open, stock_state: 'held', in_flight: null, status: 'pending' });
    expect(await repo.openAtProcessor(s.session_id, 'att_1', open, at)).toBeNull(); // opened once
    return saved;
  }

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(testInfraUrls().mongoUri, { dbName: `t${randomBytes(3).toString('hex')}_livegoods` })
      .asPromise();
    repo = new MongoSessionRepository(sessionModel(conn));
    await repo.model.init();
  });
  afterAll(async () => {
    await conn?.dropDatabase();
    await conn?.close();
  });

  it('stores a session before its processor’s, opens it under its claim, deletes one never opened only under it', async () => {
    const s = await opened();
    expect(await repo.findById(s.session_id)).toMatchObject({ gateway_session_id: s.gateway_session_id });
    const sold = unopened();
    await repo.insertOrGetByIdempotencyKey(sold);
    await repo.claimAttempt(sold.session_id, 'att_2', at, new Date(at.getTime() - 30_000));
    await repo.discardUnopened(sold.session_id, 'att_other');
    expect(await repo.findById(sold.session_id)).not.toBeNull();
    await repo.discardUnopened(s.session_id, 'att_1'); // opened: never deleted
    await repo.discardUnopened(sold.session_id, 'att_2');
    expect([await repo.findById(sold.session_id), (await repo.findById(s.session_id))?.status]).toEqual([
      null,
      'pending',
    ]);
  });

  it('completes with the address and the units sold only while they are held; an expiry after it changes nothing', async () => {
    const s = await opened();
    const payment = { ...attemptCharge(s, at), status: 'succeeded' as const, card: { brand: 'card', last4: '' } };
    const wrong = { shipping_address: address, stock_from: 'settled' as const };
    expect(
      await repo.closeFromProcessor(s.session_id, { status: 'completed', payment, now: at, goods: wrong }, []),
    ).toBeNull();
    const goods = { shipping_address: address, stock_from: 'held' as const };
    const done = await repo.closeFromProcessor(s.session_id, { status: 'completed', payment, now: at, goods }, []);
    expect(done).toMatchObject({ status: 'completed', stock_state: 'commit', shipping_address: address });
    expect(
      await repo.closeFromProcessor(s.session_id, { status: 'expired', now: at, release_stock: true }, []),
    ).toBeNull();
    expect((await repo.findById(s.session_id))!.stock_state).toBe('commit');
  });

  it('an expiry gives the units back from pending or expired by our clock; the lost-event net finds what is still held', async () => {
    const [a, b] = [await opened(), await opened()];
    await repo.expireDue(new Date(at.getTime() + 40 * 60_000), at);
    expect((await repo.findById(b.session_id))!).toMatchObject({ status: 'expired', stock_state: 'held' });
    const later = new Date(at.getTime() + 60 * 60_000);
    const held = (await repo.heldPastExpiry(later, 50)).map((s) => s.session_id);
    expect(held).toEqual(expect.arrayContaining([a.session_id, b.session_id]));
    expect(await repo.heldPastExpiry(at, 50)).toEqual([]);
    for (const s of [a, b]) {
      const closed = await repo.closeFromProcessor(
        s.session_id,
        { status: 'expired', now: later, release_stock: true },
        [],
      );
      expect(closed).toMatchObject({ status: 'expired', stock_state: 'release' });
    }
    expect((await repo.withStockToSettle(50)).map((s) => s.session_id)).toEqual(
      expect.arrayContaining([a.session_id, b.session_id]),
    );
    expect((await repo.heldPastExpiry(later, 50)).map((s) => s.session_id)).not.toContain(a.session_id);
  });
});
