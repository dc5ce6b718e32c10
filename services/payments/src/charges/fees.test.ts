import { money, PlatformError } from '@ppay/kernel';
import { assertChargeable, CHARGE_LIMITS, DEFAULT_FEE_SCHEDULE, feeBreakdown, transactionFee } from './fees';
import { processorGroupFor } from '../processors/processors';

describe('routing by currency (spec 4.1)', () => {
  it.each([
    ['NGN', 'naira'],
    ['GHS', 'regional'],
    ['KES', 'regional'],
    ['ZAR', 'regional'],
    ['TZS', 'regional'],
    ['XAF', 'regional'],
    ['XOF', 'regional'],
    ['USD', 'card'],
    ['EUR', 'card'],
    ['GBP', 'card'],
    ['CAD', 'card'],
    ['AUD', 'card'],
  ])('%s → %s gateway', (currency, group) => {
    expect(processorGroupFor(currency)).toBe(group);
  });

  it('refuses other currencies with a clear 400', () => {
    expect(() => processorGroupFor('JPY')).toThrow(/Currency JPY is not supported for charges/);
  });
});

describe('fee schedule', () => {
  const fee = (amount: number, currency: string) =>
    transactionFee(DEFAULT_FEE_SCHEDULE, processorGroupFor(currency), money(amount, currency)).amount;

  it('naira: 1.5% plus NGN 100 from NGN 2,500, capped at NGN 2,000', () => {
    expect(fee(200_000, 'NGN')).toBe(3_000); // NGN 2,000: 1.5% only
    expect(fee(250_000, 'NGN')).toBe(13_750); // NGN 2,500: 37.50 + 100
    expect(fee(100_000_000, 'NGN')).toBe(200_000); // capped
  });

  it('regional: 1.95%, rounded half up in the minor unit (XAF is whole units)', () => {
    expect(fee(10_000, 'GHS')).toBe(195);
    expect(fee(1_000, 'XAF')).toBe(20); // 19.5 → 20
  });

  it('card: 2.9% + fixed per currency', () => {
    expect(fee(10_000, 'USD')).toBe(320);
    expect(fee(10_000, 'GBP')).toBe(310);
  });

  it('customer pays fees on top, or the merchant absorbs them', () => {
    const base = money(10_000, 'USD');
    expect(feeBreakdown(DEFAULT_FEE_SCHEDULE, 'card', base, true)).toEqual({
      base,
      fee: { amount: 320, currency: 'USD' },
      total: { amount: 10_320, currency: 'USD' },
      customer_pays_fees: true,
    });
    expect(feeBreakdown(DEFAULT_FEE_SCHEDULE, 'card', base, false).total).toEqual(base);
  });
});

describe('charge limits per currency', () => {
  it('refuses charges below the minimum (above every fixed fee) and above the maximum', () => {
    expect(() => assertChargeable(money(49, 'USD'), 'amount')).toThrow(/amount must be between 50 and 99999999/);
    expect(() => assertChargeable(money(50, 'USD'), 'amount')).not.toThrow();
    expect(() => assertChargeable(money(100_000_000, 'USD'), 'amount')).toThrow(PlatformError);
    expect(() => assertChargeable(money(9_999, 'NGN'), 'amount')).toThrow(/NGN/);
    // Every minimum exceeds the fee the schedule charges on it, so a merchant is never owed a negative credit.
    for (const [currency, { min }] of Object.entries(CHARGE_LIMITS)) {
      const fee = transactionFee(DEFAULT_FEE_SCHEDULE, processorGroupFor(currency), money(min, currency)).amount;
      expect([currency, fee < min]).toEqual([currency, true]);
    }
  });
});
