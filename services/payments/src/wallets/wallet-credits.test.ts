import { paymentOutcome } from '../charges/payment-outcome';
import { convertedCharge as charge, testFees } from '../charges/charge.test-util';
import { FakeSplits, MemoryLedger } from '../memory-ports.test-util';
import { creditsFor, WalletCredits } from './wallet-credits';

describe('wallet credits', () => {
  const now = new Date(0);
  const c = charge({
    amount: { amount: 500_000, currency: 'NGN' },
    total: { amount: 500_000, currency: 'NGN' },
    conversion: null,
    fee_details: testFees('NGN', 500_000, 17_500),
  });

  it('credits a plain merchant its net in its pricing currency, once per charge', () => {
    const outcome = paymentOutcome(c, 'succeeded', null, now);
    const [entry, ...rest] = creditsFor(outcome, 'sandbox', null, 'evt_1', now);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      merchant_id: 1000,
      amount: { amount: 482_500, currency: 'NGN' },
      kind: 'credit',
      reason: 'payment',
    });
    expect(entry!.idempotency_key).toBe('ch_1:1000:payment');
    // Another delivery of the same payment (different event id) yields the same key.
    expect(creditsFor(outcome, 'sandbox', null, 'evt_2', now)[0]!.idempotency_key).toBe(entry!.idempotency_key);
  });

  it('marketplace: operator gets amount minus platform fee, active sub-merchant gets total minus commission', () => {
    const split = charge({ ...c, sub_merchant_id: 2000 });
    const outcome = paymentOutcome(split, 'succeeded', null, now);
    const entries = creditsFor(
      outcome,
      'sandbox',
      { active: true, commission_rate: '0.0800', commission_source: 'merchant' },
      'evt',
      now,
    );
    expect(entries.map((e) => [e.merchant_id, e.reason, e.amount.amount, e.amount.currency])).toEqual([
      [2000, 'marketplace_split', 460_000, 'NGN'],
      [1000, 'marketplace_operator', 482_500, 'NGN'],
    ]);
    expect(entries[0]!.conversion_details).toEqual({
      source: 'marketplace_split',
      marketplace_id: 1000,
      charge_currency: 'NGN',
      gross_product_amount: 500_000,
      commission_rate: '0.0800',
      commission_amount: 40_000,
      net_credited: 460_000,
      cart_identifier: 'order-1',
    });
    const skipped = creditsFor(
      outcome,
      'sandbox',
      { active: false, commission_rate: '0', commission_source: 'none' },
      'evt',
      now,
    );
    expect(skipped.map((e) => e.merchant_id)).toEqual([1000]);
  });

  it('never writes a negative or zero credit, whatever a fee leaves of the payment', () => {
    const tiny = charge({
      amount: { amount: 30, currency: 'USD' },
      total: { amount: 30, currency: 'USD' },
      conversion: null,
      fee_details: testFees('USD', 30, 31),
    });
    expect(creditsFor(paymentOutcome(tiny, 'succeeded', null, now), 'sandbox', null, 'evt', now)).toEqual([]);
  });

  it('judges a marketplace split once: a later delivery repeats the first decision, whatever changed since', async () => {
    const ledger = new MemoryLedger();
    const splits = new FakeSplits();
    const credits = new WalletCredits(ledger, splits, () => now);
    const active = { active: true, commission_rate: '0.0800', commission_source: 'merchant' };
    const sold = (chargeId: string) =>
      paymentOutcome(charge({ ...c, charge_id: chargeId, sub_merchant_id: 2000 }), 'succeeded', null, now);
    const reasons = (chargeId: string) =>
      [...ledger.entries.values()].filter((e) => e.charge_id === chargeId).map((e) => [e.merchant_id, e.reason]);
    splits.set(1000, 2000, { ...active, active: false });
    await credits.record(sold('ch_skipped'), 'sandbox', 'evt_1');
    splits.set(1000, 2000, active);
    await credits.record(sold('ch_credited'), 'sandbox', 'evt_2');
    // The sub-merchant is reactivated, then suspended: redeliveries of both payments change nothing.
    expect((await credits.record(sold('ch_skipped'), 'sandbox', 'evt_3')).inserted).toEqual([]);
    splits.set(1000, 2000, { ...active, active: false });
    expect((await credits.record(sold('ch_credited'), 'sandbox', 'evt_4')).inserted).toEqual([]);
    expect(reasons('ch_skipped')).toEqual([[1000, 'marketplace_operator']]);
    expect(reasons('ch_credited')).toEqual([
      [2000, 'marketplace_split'],
      [1000, 'marketplace_operator'],
    ]);
    // A crash after the sub-merchant's credit, before the operator's: the next delivery finishes that decision.
    ledger.entries.delete('ch_credited:1000:marketplace_operator');
    expect((await credits.record(sold('ch_credited'), 'sandbox', 'evt_5')).inserted.map((e) => e.reason)).toEqual([
      'marketplace_operator',
    ]);
    expect(reasons('ch_credited')).toHaveLength(2);
  });
});
