import type { LedgerEntry } from '../wallets/ledger-entry';
import { testCredit } from '../wallets/wallet-memory.test-util';
import { reversalsFor } from '../refunds/refund-ledger';
import { disputeEntries, disputedShare, fundsWithdrawn, type DisputedCharge } from './dispute-funds';

const NOW = new Date('2026-11-01T10:00:00Z');

function credit(merchantId: number, reason: LedgerEntry['reason'], amount: number, currency = 'NGN'): LedgerEntry {
  return testCredit(`ch_1:${merchantId}:${reason}`, amount, {
    merchant_id: merchantId,
    reason,
    amount: { amount, currency },
    charge_id: 'ch_1',
  });
}

const plain: DisputedCharge = {
  merchant_id: 1000,
  sub_merchant_id: null,
  captured: { amount: 10_001, currency: 'NGN' },
  fallback_currency: 'NGN',
};
const ngn = (amount: number) => ({ amount, currency: 'NGN' });

describe('disputedShare (the back slice of the capture)', () => {
  it('withdraws a whole credit for a full dispute and nothing for none', () => {
    expect(disputedShare(9_651, 10_001, 10_001)).toBe(9_651);
    expect(disputedShare(9_651, 0, 10_001)).toBe(0);
  });

  it('rounds the kept part down, so the withdrawal is the credit minus what the front keeps', () => {
    // kept = floor(9651 · 6668 / 10001) = 6434, so 3217 goes.
    expect(disputedShare(9_651, 3_333, 10_001)).toBe(3_217);
  });

  it('never lets refunds and a dispute take more than a credit, for any split of the capture', () => {
    // Refunds take front slices, the dispute the back slice: together at most the capture.
    for (const captured of [1, 7, 100, 10_001, 99_999]) {
      for (const credit of [1, 3, 9_651, 123_457]) {
        for (const disputed of [0, 1, Math.floor(captured / 3), captured]) {
          const left = captured - disputed;
          const cuts = [0, Math.floor(left / 3), Math.floor((2 * left) / 3), left];
          const refunds = cuts
            .slice(1)
            .map((after, i) => ({ before: cuts[i]!, amount: after - cuts[i]! }))
            .filter((r) => r.amount > 0)
            .map((r, i) => ({
              charge_id: 'ch_1',
              amount_captured: { amount: captured, currency: 'NGN' },
              refund: {
                refund_id: `re_${i}`,
                amount: ngn(r.amount),
                status: 'succeeded' as const,
                reason: null,
                refunded_before: r.before,
                created_at: NOW.toISOString(),
              },
            }));
          const c = { ...credit1(credit), amount: ngn(credit) };
          const refunded = refunds
            .flatMap((r) => reversalsFor([c], r, 'sandbox', 'ev', NOW))
            .reduce((s, e) => s + e.amount.amount, 0);
          const total = refunded + disputedShare(credit, disputed, captured);
          expect(total).toBeLessThanOrEqual(credit);
          // Everything refunded or disputed: the credit is taken back exactly.
          expect(total).toBe(credit);
        }
      }
    }
  });
});

function credit1(amount: number): LedgerEntry {
  return credit(1000, 'payment', amount);
}

describe('fundsWithdrawn', () => {
  it('takes a plain charge’s share from the merchant and the fee in its wallet currency', () => {
    const { funds, fee } = fundsWithdrawn([credit(1000, 'payment', 9_651)], plain, ngn(10_001), { NGN: 250_000 });
    expect(fee).toEqual(ngn(250_000));
    expect(funds).toEqual([
      { merchant_id: 1000, role: 'merchant', kind: 'dispute_withdrawal', amount: ngn(9_651) },
      { merchant_id: 1000, role: 'merchant', kind: 'dispute_fee', amount: ngn(250_000) },
    ]);
  });

  it('shares a marketplace split charge in the proportion of its credits; the fee is the operator’s', () => {
    const credits = [
      credit(2000, 'marketplace_operator', 9_651),
      credit(3000, 'marketplace_split', 900, 'USD'),
      // A reinstatement of an earlier dispute is not a payment credit: never shared again.
      { ...credit(2000, 'dispute_reinstatement', 5), idempotency_key: 'dp:2000:r' },
    ];
    const charge = { ...plain, merchant_id: 2000, sub_merchant_id: 3000 };
    const { funds, fee } = fundsWithdrawn(credits, charge, ngn(5_000), { NGN: 250_000, USD: 1_500 });
    expect(fee).toEqual(ngn(250_000));
    expect(funds).toEqual([
      // 9651 − floor(9651·5001/10001) = 9651 − 4825
      { merchant_id: 2000, role: 'operator', kind: 'dispute_withdrawal', amount: ngn(4_826) },
      // 900 − floor(900·5001/10001) = 900 − 450
      { merchant_id: 3000, role: 'sub_merchant', kind: 'dispute_withdrawal', amount: { amount: 450, currency: 'USD' } },
      { merchant_id: 2000, role: 'operator', kind: 'dispute_fee', amount: ngn(250_000) },
    ]);
  });

  it('charges no fee in a currency the table does not name, and the fallback currency without a credit', () => {
    const { funds, fee } = fundsWithdrawn([], { ...plain, fallback_currency: 'JPY' }, ngn(100), { NGN: 1 });
    expect(fee).toEqual({ amount: 0, currency: 'JPY' });
    expect(funds).toEqual([]);
  });
});

describe('disputeEntries', () => {
  const funds = [
    { merchant_id: 2000, role: 'operator' as const, kind: 'dispute_withdrawal' as const, amount: ngn(4_826) },
    { merchant_id: 2000, role: 'operator' as const, kind: 'dispute_fee' as const, amount: ngn(250_000) },
  ];
  const dispute = { dispute_id: 'dp_1', charge_id: 'ch_1' };

  it('debits each withdrawal once (keys per dispute, wallet and movement)', () => {
    const entries = disputeEntries('withdrawn', dispute, funds, 'live', 'ev', NOW);
    expect(entries.map((e) => [e.idempotency_key, e.kind, e.reason, e.amount.amount, e.mode])).toEqual([
      ['dp_1:2000:dispute_withdrawal', 'debit', 'dispute_withdrawal', 4_826, 'live'],
      ['dp_1:2000:dispute_fee', 'debit', 'dispute_fee', 250_000, 'live'],
    ]);
  });

  it('gives each one back as a reinstatement credit of the same amount', () => {
    const entries = disputeEntries('reinstated', dispute, funds, 'live', 'ev', NOW);
    expect(entries.map((e) => [e.idempotency_key, e.kind, e.reason, e.amount.amount])).toEqual([
      ['dp_1:2000:dispute_withdrawal:reinstated', 'credit', 'dispute_reinstatement', 4_826],
      ['dp_1:2000:dispute_fee:reinstated', 'credit', 'dispute_reinstatement', 250_000],
    ]);
  });
});
