import { PlatformError, type PaymentRefunded } from '@ppay/kernel';
import { NGN_CHARGE as NGN } from '../charges/charge.test-util';
import { rejectionOf } from '../errors.test-util';
import { ChargeService, type ChargeRequest } from '../charges/charges';
import { DEFAULT_FEE_SCHEDULE } from '../charges/fees';
import { FakeFx, FakeMerchants, FakeSplits, MemoryCharges } from '../memory-ports.test-util';
import { FakeProcessors } from '../processors/processors.test-util';
import { OutcomeService } from '../charges/outcomes';
import { MAX_REFUNDS_PER_CHARGE, RefundService } from './refunds';

async function setup() {
  const merchants = new FakeMerchants();
  merchants.add({ merchant_id: 1000 });
  merchants.add({ merchant_id: 3000 });
  const charges = new MemoryCharges();
  const processors = new FakeProcessors();
  let clock = Date.parse('2026-11-01T10:00:00Z');
  const now = () => new Date(clock);
  const sleep = async (ms: number) => {
    clock += ms;
  };
  const chargeService = new ChargeService(
    { merchants, fx: new FakeFx(), splits: new FakeSplits(), processors, charges },
    { feeSchedule: DEFAULT_FEE_SCHEDULE, tolerance: '0.01' },
    now,
    sleep,
  );
  const outcomes = new OutcomeService(charges, now);
  const settled: string[] = [];
  const refunds = new RefundService(
    { charges, processors },
    { staleAfterMs: 60_000, onSettled: (r) => settled.push(r.status) },
    now,
    sleep,
  );
  const newCharge = async (succeed = true, request: ChargeRequest = NGN) => {
    const out = await chargeService.create(1000, 'sandbox', request);
    if (out.kind !== 'charge') throw new Error('expected a charge');
    if (succeed) await outcomes.simulate(1000, 'sandbox', out.charge.charge_id, 'succeed');
    return out.charge.charge_id;
  };
  const refundEvents = () =>
    charges.events.filter((e) => e.subject === 'payments.payment.refunded').map((e) => e.data as PaymentRefunded);
  return { charges, processors, refunds, newCharge, refundEvents, settled, advance: (ms: number) => (clock += ms) };
}

/** A refund amount as partners send it: no currency, so the charge's. */
const part = (amount: number) => ({ amount, currency: '' });
const ngn = (amount: number) => ({ amount, currency: 'NGN' });

const errorOf = async (p: Promise<unknown>) => {
  const e = await rejectionOf(p);
  return [e.code, e.param];
};

describe('RefundService (refunds inside the charge aggregate)', () => {
  it('refunds part, then the rest by default, and shows amount_refunded / refunded on the charge', async () => {
    const { refunds, newCharge, charges, refundEvents } = await setup();
    const id = await newCharge();
    const first = await refunds.create(1000, 'sandbox', id, { amount: part(200_000), reason: 'damaged' });
    expect(first.replayed).toBe(false);
    expect(first.refund).toMatchObject({
      status: 'succeeded',
      amount: { amount: 200_000, currency: 'NGN' },
      reason: 'damaged',
      refunded_before: ngn(0),
    });
    expect(first.charge).toMatchObject({ amount_refunded: ngn(200_000), refunded: false });
    const rest = await refunds.create(1000, 'sandbox', id, {});
    expect(rest.refund).toMatchObject({ status: 'succeeded', amount: ngn(300_000), refunded_before: ngn(200_000) });
    expect(rest.charge).toMatchObject({ amount_refunded: ngn(500_000), refunded: true });
    expect((await charges.findForMerchant(1000, 'sandbox', id))!.refunds).toHaveLength(2);
    // One payment.refunded per refund, with the refund sub-object and the charge's totals after it.
    expect(refundEvents()).toEqual([
      expect.objectContaining({
        charge_id: id,
        amount_captured: { amount: 500_000, currency: 'NGN' },
        amount_refunded: { amount: 200_000, currency: 'NGN' },
        refunded: false,
        refund: expect.objectContaining({
          refund_id: first.refund.refund_id,
          amount: { amount: 200_000, currency: 'NGN' },
        }),
      }),
      expect.objectContaining({ amount_refunded: { amount: 500_000, currency: 'NGN' }, refunded: true }),
    ]);
  });

  it('never refunds more than captured: over-refund and a refund of a fully refunded charge are 400s', async () => {
    const { refunds, newCharge } = await setup();
    const id = await newCharge();
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(500_001) }))).toEqual([
      'REFUND_EXCEEDS_CHARGE',
      'amount',
    ]);
    await refunds.create(1000, 'sandbox', id, { amount: part(499_999) });
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(2) }))).toEqual([
      'REFUND_EXCEEDS_CHARGE',
      'amount',
    ]);
    await refunds.create(1000, 'sandbox', id, { amount: part(1) });
    expect(await errorOf(refunds.create(1000, 'sandbox', id, {}))).toEqual(['CHARGE_ALREADY_REFUNDED', 'charge_id']);
  });

  it('20 concurrent refunds of 1/8 of a charge: exactly 8 succeed, the rest are refused, the total is the capture', async () => {
    const { refunds, newCharge, charges, refundEvents } = await setup();
    const id = await newCharge();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => refunds.create(1000, 'sandbox', id, { amount: part(62_500) })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r.reason as PlatformError).code);
    expect(ok).toHaveLength(8);
    expect(refused).toHaveLength(12);
    for (const code of refused) expect(['REFUND_EXCEEDS_CHARGE', 'CHARGE_ALREADY_REFUNDED']).toContain(code);
    const charge = (await charges.findForMerchant(1000, 'sandbox', id))!;
    expect(charge.amount_refunded).toEqual(ngn(500_000));
    expect(charge.refunded).toBe(true);
    // The succeeded refunds tile the capture: adjacent, disjoint slices.
    const slices = refundEvents()
      .map((e) => e.refund.refunded_before)
      .sort((a, b) => a - b);
    expect(slices).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => i * 62_500));
  });

  it('concurrent full refunds without an amount: exactly one wins', async () => {
    const { refunds, newCharge, charges } = await setup();
    const id = await newCharge();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => refunds.create(1000, 'sandbox', id, {})));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await charges.findForMerchant(1000, 'sandbox', id))!.amount_refunded).toEqual(ngn(500_000));
  });

  it('is idempotent by Idempotency-Key: a retry answers the same refund; a different body with it is a 422', async () => {
    const { refunds, newCharge, processors, refundEvents } = await setup();
    const id = await newCharge();
    const a = await refunds.create(1000, 'sandbox', id, { amount: part(1000) }, { idempotencyKey: 'rf-1' });
    const b = await refunds.create(1000, 'sandbox', id, { amount: part(1000) }, { idempotencyKey: 'rf-1' });
    expect(b.replayed).toBe(true);
    expect(b.refund.refund_id).toBe(a.refund.refund_id);
    expect(b.charge.amount_refunded).toEqual(ngn(1000));
    expect(processors.refunds).toHaveLength(1);
    expect(refundEvents()).toHaveLength(1);
    expect(
      await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(2000) }, { idempotencyKey: 'rf-1' })),
    ).toEqual(['IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key']);
  });

  it('refuses a charge that has not succeeded (400) and hides other merchants’ and other modes’ charges (404)', async () => {
    const { refunds, newCharge } = await setup();
    const pending = await newCharge(false);
    expect(await errorOf(refunds.create(1000, 'sandbox', pending, {}))).toEqual(['CHARGE_NOT_REFUNDABLE', 'charge_id']);
    const id = await newCharge();
    expect(await errorOf(refunds.create(3000, 'sandbox', id, {}))).toEqual(['CHARGE_NOT_FOUND', 'charge_id']);
    expect(await errorOf(refunds.create(1000, 'live', id, {}))).toEqual(['CHARGE_NOT_FOUND', 'charge_id']);
    expect(await errorOf(refunds.list(3000, 'sandbox', id))).toEqual(['CHARGE_NOT_FOUND', 'charge_id']);
  });

  it('validates amount and reason', async () => {
    const { refunds, newCharge } = await setup();
    const id = await newCharge();
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(0) }))).toEqual([
      'VALIDATION_FAILED',
      'amount',
    ]);
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(1.5) }))).toEqual([
      'VALIDATION_FAILED',
      'amount',
    ]);
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { reason: 'x'.repeat(501) }))).toEqual([
      'VALIDATION_FAILED',
      'reason',
    ]);
  });

  it('takes an amount in the charge currency, named or not; another currency is refused', async () => {
    const { refunds, newCharge } = await setup();
    const id = await newCharge();
    const usd = await rejectionOf(refunds.create(1000, 'sandbox', id, { amount: { amount: 100, currency: 'USD' } }));
    expect([usd.code, usd.message, usd.param]).toEqual([
      'VALIDATION_FAILED',
      'amount must be in the charge currency (NGN)',
      'amount',
    ]);
    const named = await refunds.create(1000, 'sandbox', id, { amount: { amount: 100, currency: 'ngn' } });
    expect(named.refund).toMatchObject({ status: 'succeeded', amount: ngn(100) });
  });

  it('a declined refund is recorded failed, publishes nothing and frees its amount', async () => {
    const { refunds, newCharge, processors, refundEvents, settled } = await setup();
    const id = await newCharge();
    processors.refundAnswer = { status: 'failed', failure_reason: 'declined_by_processor' };
    const declined = await refunds.create(1000, 'sandbox', id, {});
    expect(declined.refund).toMatchObject({ status: 'failed', failure_reason: 'declined_by_processor' });
    expect(declined.charge).toMatchObject({ amount_refunded: ngn(0), refunded: false });
    expect(refundEvents()).toHaveLength(0);
    processors.refundAnswer = undefined;
    const full = await refunds.create(1000, 'sandbox', id, {});
    expect(full.refund).toMatchObject({ status: 'succeeded', amount: { amount: 500_000 } });
    expect(settled).toEqual(['failed', 'succeeded']);
  });

  it('holds at most 100 refunds per charge, failed ones included (the charge document stays bounded)', async () => {
    const { refunds, newCharge, processors } = await setup();
    const id = await newCharge();
    processors.refundAnswer = { status: 'failed', failure_reason: 'declined_by_processor' };
    for (let i = 0; i < MAX_REFUNDS_PER_CHARGE; i++) await refunds.create(1000, 'sandbox', id, { amount: part(1) });
    processors.refundAnswer = undefined;
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(1) }))).toEqual([
      'REFUND_LIMIT_REACHED',
      'charge_id',
    ]);
  });

  it('a processor outage leaves the refund pending (it holds its amount); the same key or the sweep settles it once', async () => {
    const { refunds, newCharge, processors, charges, refundEvents, advance } = await setup();
    const id = await newCharge();
    processors.refundAnswer = new PlatformError('SERVICE_UNAVAILABLE');
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(100) }, { idempotencyKey: 'k1' }))).toEqual(
      ['SERVICE_UNAVAILABLE', undefined],
    );
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(100) }, { idempotencyKey: 'k2' }))).toEqual(
      ['SERVICE_UNAVAILABLE', undefined],
    );
    let charge = (await charges.findForMerchant(1000, 'sandbox', id))!;
    expect(charge.refunds.map((r) => r.status)).toEqual(['pending', 'pending']);
    // Pending refunds count against the cap.
    expect(await errorOf(refunds.create(1000, 'sandbox', id, { amount: part(499_801) }))).toEqual([
      'REFUND_EXCEEDS_CHARGE',
      'amount',
    ]);
    processors.refundAnswer = undefined;
    const retried = await refunds.create(1000, 'sandbox', id, { amount: part(100) }, { idempotencyKey: 'k1' });
    expect(retried).toMatchObject({ replayed: true, refund: { status: 'succeeded' } });
    expect(await refunds.resumeStale()).toBe(0); // k2 is not stale yet
    advance(61_000);
    expect(await refunds.resumeStale()).toBe(1);
    charge = (await charges.findForMerchant(1000, 'sandbox', id))!;
    expect(charge.refunds.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(charge.amount_refunded).toEqual(ngn(200));
    expect(refundEvents()).toHaveLength(2);
    // The processor was asked with the same refund id each time (its idempotency key).
    const k1 = charge.refunds[0]!.refund_id;
    expect(processors.refunds.filter((r) => r.refund_id === k1)).toHaveLength(2);
  });

  it('lists a charge’s refunds', async () => {
    const { refunds, newCharge } = await setup();
    const id = await newCharge();
    await refunds.create(1000, 'sandbox', id, { amount: part(10) });
    const charge = await refunds.list(1000, 'sandbox', id);
    expect(charge.refunds).toHaveLength(1);
  });
});
