import bundledTable from '../data/rates-2026-11-01.json';
import { applySurcharge, Converter } from './conversion';
import { BundledRateSource, parseRateTable, type RateSource } from './rates';

const bundled = new BundledRateSource(parseRateTable(bundledTable, 'bundled'));
const live: RateSource = {
  id: 'live:feed.test',
  quote: async (from, to) => ({
    rate: from === 'USD' && to === 'NGN' ? '1600' : '2',
    source: 'live:feed.test',
    as_of: '2026-11-20T10:00:00.000Z',
  }),
};
const m = (amount: number, currency: string) => ({ amount, currency });

describe('Converter', () => {
  const plain = new Converter({ bundled, configured: live, surchargePercent: '0' });
  const marked = new Converter({ bundled, configured: bundled, surchargePercent: '1.5' });

  it('uses the bundled table for sandbox callers and the configured source otherwise', async () => {
    expect(await plain.convert(m(1000, 'USD'), 'NGN', 'sandbox')).toEqual({
      result: m(1_532_450, 'NGN'),
      rate: '1532.45',
      mid_rate: '1532.45',
      source: 'bundled:2026-11-01',
      surcharge_percent: '0',
      rate_date: '2026-11-01',
      applied: true,
    });
    expect(await plain.convert(m(1000, 'USD'), 'NGN', 'live')).toMatchObject({
      result: m(1_600_000, 'NGN'),
      source: 'live:feed.test',
    });
    expect(await plain.convert(m(1000, 'USD'), 'NGN', undefined)).toMatchObject({ source: 'live:feed.test' });
  });

  it('applies the surcharge to the rate (10 significant digits), then rounds the amount once', async () => {
    expect(applySurcharge('1532.45', '1.5')).toBe('1555.43675');
    expect(applySurcharge('0.0006525498385', '1.5')).toBe('0.0006623380861'); // 0.000662338086077… → half up
    expect(applySurcharge('1532.45', '0')).toBe('1532.45');
    const c = await marked.convert(m(1999, 'USD'), 'NGN', 'sandbox');
    // 19.99 × 1555.43675 = 31093.18063… NGN → 3,109,318 kobo
    expect(c).toMatchObject({
      result: m(3_109_318, 'NGN'),
      rate: '1555.43675',
      mid_rate: '1532.45',
      surcharge_percent: '1.5',
    });
  });

  it('rounds to whole units for JPY, KRW and VND (half up) and converts out of them exactly', async () => {
    expect((await plain.convert(m(1050, 'USD'), 'VND', 'sandbox')).result).toEqual(m(266_543, 'VND')); // 266,542.5
    expect((await plain.convert(m(1000, 'USD'), 'KRW', 'sandbox')).result).toEqual(m(13_925, 'KRW'));
    expect((await plain.convert(m(5000, 'NGN'), 'JPY', 'sandbox')).result).toEqual(m(5, 'JPY')); // 4.97 yen
    expect((await plain.convert(m(25_000, 'KRW'), 'VND', 'sandbox')).result).toEqual(m(455_745, 'VND'));
    expect((await plain.convert(m(1234, 'JPY'), 'USD', 'sandbox')).result).toEqual(m(810, 'USD')); // 8.0998
  });

  it('same currency is the identity: rate 1, source identity, not applied, no surcharge', async () => {
    expect(await marked.convert(m(777, 'KES'), 'KES', 'live')).toEqual({
      result: m(777, 'KES'),
      rate: '1',
      mid_rate: '1',
      source: 'identity',
      surcharge_percent: '0',
      rate_date: '',
      applied: false,
    });
  });

  it('reports unsupported pairs and rejects a negative surcharge', async () => {
    await expect(plain.convert(m(100, 'USD'), 'PEN', 'sandbox')).rejects.toMatchObject({
      code: 'UNSUPPORTED_CURRENCY',
      message: 'Unable to convert from USD to PEN',
    });
    expect(() => new Converter({ bundled, configured: bundled, surchargePercent: '-1' })).toThrow(/negative/);
  });
});
