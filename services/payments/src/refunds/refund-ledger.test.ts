import type { PaymentRefunded } from '@ppay/kernel';
import type { LedgerEntry, SplitRecord, SplitReversalRecord } from '../wallets/ledger-entry';
import { testCredit } from '../wallets/wallet-memory.test-util';
import type { ChargeRecord } from '../charges/charge';
import { testCharge } from '../charges/charge.test-util';
import { FakeSplits, MemoryCharges, MemoryLedger } from '../memory-ports.test-util';
import { RefundLedger, reversalsFor } from './refund-ledger';
import { WalletCredits } from '../wallets/wallet-credits';

const NOW = new Date('2026-11-01T10:00:00Z');

function credit(merchantId: number, reason: LedgerEntry['reason'], amount: number, currency = 'NGN'): LedgerEntry {
  const split: SplitRecord = {
    source: 'marketplace_split',
    marketplace_id: 2000,
    charge_currency: 'NGN',
    gross_product_amount: 10_001,
    commission_rate: '0.1',
    commission_amount: 1000,
    net_credited: amount,
    cart_identifier: 'cart-9',
  };
  return testCredit(
    `ch_1:${merchantId}:${reason}`,
    amount,
    {
      merchant_id: merchantId,
      reason,
      amount: { amount, currency },
      charge_id: 'ch_1',
      event_id: 'ev',
      conversion_details: reason === 'marketplace_split' ? split : null,
    },
    NOW,
  );
}

const refundOf = (refundId: string, before: number, amount: number, captured = 10_001) => ({
  charge_id: 'ch_1',
  amount_captured: { amount: captured, currency: 'NGN' },
  refund: {
    refund_id: refundId,
    amount: { amount, currency: 'NGN' },
    status: 'succeeded' as const,
    reason: null,
    refunded_before: before,
    created_at: NOW.toISOString(),
  },
});

describe('reversalsFor (proportional reversal of a charge’s credits)', () => {
  it('reverses a plain charge’s credit in proportion, rounding down per refund but exact in total', () => {
    const credits = [credit(1000, 'payment', 9_651)];
    const refunds = [refundOf('re_a', 0, 3_333), refundOf('re_b', 3_333, 3_333), refundOf('re_c', 6_666, 3_335)];
    const debits = refunds.flatMap((r) => reversalsFor(credits, r, 'sandbox', 'ev', NOW));
    expect(debits.map((d) => [d.idempotency_key, d.kind, d.reason, d.amount.amount])).toEqual([
      ['re_a:1000:refund', 'debit', 'refund', 3_216], // floor(9651·3333/10001)
      ['re_b:1000:refund', 'debit', 'refund', 3_216], // floor(9651·6666/10001) − 3216
      ['re_c:1000:refund', 'debit', 'refund', 3_219], // the rest: 9651 in all
    ]);
    expect(debits.reduce((s, d) => s + d.amount.amount, 0)).toBe(9_651);
  });

  it('reverses a marketplace split: operator and sub-merchant, commission + net = reversed gross exactly', () => {
    const credits = [credit(2000, 'marketplace_operator', 9_651), credit(3000, 'marketplace_split', 9_001, 'USD')];
    const half = reversalsFor(credits, refundOf('re_a', 0, 5_000), 'sandbox', 'ev', NOW);
    expect(half.map((d) => [d.merchant_id, d.reason, d.amount])).toEqual([
      [2000, 'refund', { amount: 4_825, currency: 'NGN' }],
      [3000, 'marketplace_split_reversal', { amount: 4_500, currency: 'USD' }],
    ]);
    const record = half[1]!.conversion_details as SplitReversalRecord;
    expect(record).toMatchObject({ source: 'marketplace_split_reversal', refund_id: 're_a', net_reversed: 4_500 });
    expect(record.commission_reversed + record.net_reversed).toBe(record.gross_reversed);
    expect(record.gross_reversed).toBe(5_000); // floor(10001·5000/10001)
    const rest = reversalsFor(credits, refundOf('re_b', 5_000, 5_001), 'sandbox', 'ev', NOW);
    expect(rest.map((d) => d.amount.amount)).toEqual([9_651 - 4_825, 9_001 - 4_500]);
    const restRecord = rest[1]!.conversion_details as SplitReversalRecord;
    expect(record.gross_reversed + restRecord.gross_reversed).toBe(10_001);
    expect(record.commission_reversed + restRecord.commission_reversed).toBe(1_000);
  });

  it('ignores debits and other charges’ entries, and skips a zero reversal', () => {
    const debit = { ...credit(1000, 'payment', 500), kind: 'debit' as const };
    const other = { ...credit(1000, 'payment', 500), charge_id: 'ch_2' };
    expect(reversalsFor([debit, other], refundOf('re_a', 0, 10), 'sandbox', 'ev', NOW)).toEqual([]);
    expect(reversalsFor([credit(1000, 'payment', 5)], refundOf('re_a', 0, 1), 'sandbox', 'ev', NOW)).toEqual([]);
  });
});

describe('RefundLedger (the payment.refunded consumer’s use case)', () => {
  const succeededCharge = (): ChargeRecord => testCharge({ status: 'succeeded', completed_at: NOW }, NOW);

  const eventFor = (c: ChargeRecord, refundId: string, before: number, amount: number): PaymentRefunded => ({
    charge_id: c.charge_id,
    transaction_id: c.transaction_id,
    merchant_id: 1000,
    sub_merchant_id: null,
    reference: null,
    gateway: 'naira_gateway',
    amount_captured: { amount: 10_000, currency: 'NGN' },
    amount_refunded: { amount: before + amount, currency: 'NGN' },
    refunded: before + amount === 10_000,
    refund: {
      refund_id: refundId,
      amount: { amount, currency: 'NGN' },
      status: 'succeeded',
      reason: null,
      refunded_before: before,
      created_at: NOW.toISOString(),
    },
    metadata: {},
    refunded_at: NOW.toISOString(),
  });

  it('writes the payment’s credits first when payment.succeeded has not been handled, then debits once', async () => {
    const charges = new MemoryCharges();
    const ledger = new MemoryLedger();
    const charge = succeededCharge();
    await charges.insert(charge);
    const refunds = new RefundLedger(
      { charges, ledger, credits: new WalletCredits(ledger, new FakeSplits()) },
      () => NOW,
    );
    const event = eventFor(charge, 're_1', 0, 10_000);
    const first = await refunds.record(event, 'sandbox', 'ev-1');
    expect(first.inserted.map((e) => [e.kind, e.reason, e.amount.amount])).toEqual([['debit', 'refund', 9_650]]);
    const entries = [...ledger.entries.values()];
    expect(entries.filter((e) => e.kind === 'credit').map((e) => e.amount.amount)).toEqual([9_650]);
    // Redelivery: nothing new.
    const again = await refunds.record(event, 'sandbox', 'ev-1');
    expect(again).toEqual({ inserted: [], duplicates: 1 });
  });

  it('does nothing for a charge that no longer exists (its merchant was deleted)', async () => {
    const ledger = new MemoryLedger();
    const refunds = new RefundLedger({
      charges: new MemoryCharges(),
      ledger,
      credits: new WalletCredits(ledger, new FakeSplits()),
    });
    expect(await refunds.record(eventFor(succeededCharge(), 're_1', 0, 1), 'sandbox', 'ev')).toEqual({
      inserted: [],
      duplicates: 0,
    });
  });
});
