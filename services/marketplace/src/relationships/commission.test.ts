import { percentToRate, resolveCommission } from './commission';

describe('percentToRate', () => {
  it.each([
    [8, '0.0800'],
    [0, '0.0000'],
    [100, '1.0000'],
    [12.5, '0.1250'],
    [0.01, '0.0001'],
    [33.33, '0.3333'],
  ])('%p%% → %s exactly', (percent, rate) => {
    expect(percentToRate(percent, 'x')).toBe(rate);
  });

  it.each([-1, 100.01, 8.125, Number.NaN, Number.POSITIVE_INFINITY])('rejects %p', (percent) => {
    expect(() => percentToRate(percent, 'commission_rate')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', param: 'commission_rate' }),
    );
  });

  it('resolves merchant rate → marketplace default → 0', () => {
    expect(resolveCommission('0.0500', '0.0800')).toEqual({ rate: '0.0500', source: 'merchant' });
    expect(resolveCommission(null, '0.0800')).toEqual({ rate: '0.0800', source: 'marketplace_default' });
    expect(resolveCommission(null, null)).toEqual({ rate: '0.0000', source: 'none' });
  });
});
