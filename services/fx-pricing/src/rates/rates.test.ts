import { parseDecimal } from '@ppay/kernel';
import bundledTable from '../data/rates-2026-11-01.json';
import { divideToSignificant } from './decimals';
import { BundledRateSource, parseRateTable } from './rates';

const bundled = new BundledRateSource(parseRateTable(bundledTable, 'bundled'));

describe('exact cross rates', () => {
  it('divides on BigInt and rounds half up to 10 significant digits', () => {
    const div = (a: string, b: string) => divideToSignificant(parseDecimal(a), parseDecimal(b));
    expect(div('1', '3')).toEqual({ units: 3333333333n, scale: 10 });
    expect(div('2', '3')).toEqual({ units: 6666666667n, scale: 10 });
    expect(div('1', '1532.45')).toEqual({ units: 6525498385n, scale: 13 }); // 0.0006525498385
    expect(div('25385', '1')).toEqual({ units: 25385n, scale: 0 });
    // 9.99999999995 rounds up into the next decade: 10.00000000 → "10"
    expect(div('9.99999999995', '1')).toEqual({ units: 10n, scale: 0 });
    expect(div('123456789012345', '1')).toEqual({ units: 123456789000000n, scale: 0 });
  });

  it('quotes every platform currency from the dated table', async () => {
    expect(bundled.id).toBe('bundled:2026-11-01');
    for (const c of [
      'NGN',
      'GHS',
      'KES',
      'ZAR',
      'TZS',
      'XAF',
      'XOF',
      'USD',
      'EUR',
      'GBP',
      'CAD',
      'AUD',
      'JPY',
      'KRW',
      'VND',
    ]) {
      expect(bundled.currencies()).toContain(c);
    }
    expect(await bundled.quote('USD', 'NGN')).toEqual({
      rate: '1532.45',
      source: 'bundled:2026-11-01',
      as_of: '2026-11-01',
    });
    expect((await bundled.quote('NGN', 'USD')).rate).toBe('0.0006525498385');
    expect((await bundled.quote('EUR', 'NGN')).rate).toBe('1777.784223');
    expect((await bundled.quote('JPY', 'KRW')).rate).toBe('9.14013784');
    // The CFA francs follow the EUR peg exactly.
    expect((await bundled.quote('EUR', 'XAF')).rate).toBe('655.957');
    expect((await bundled.quote('XAF', 'XOF')).rate).toBe('1');
  });

  it('answers UNSUPPORTED_CURRENCY "Unable to convert from X to Y" for a currency it has no rate for', async () => {
    await expect(bundled.quote('USD', 'PEN')).rejects.toMatchObject({
      code: 'UNSUPPORTED_CURRENCY',
      message: 'Unable to convert from USD to PEN',
    });
  });

  it('parses feeds with a date or a unix timestamp and skips unusable entries', () => {
    const t = parseRateTable(
      { base: 'eur', timestamp: 1_793_491_200, rates: { USD: 1.16, XXX1: 2, NGN: '0', GHS: 'x' } },
      't',
    );
    expect(t.base).toBe('EUR');
    expect(t.as_of).toBe('2026-11-01T00:00:00.000Z');
    expect([...t.rates.keys()].sort()).toEqual(['EUR', 'USD']);
    expect(() => parseRateTable({ rates: {} }, 't')).toThrow(/base/);
    expect(() => parseRateTable({ base: 'USD', rates: {} }, 't')).toThrow(/date/);
  });
});
