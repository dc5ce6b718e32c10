import { isSubscriptionFrequency, SUBSCRIPTION_FREQUENCIES, TRIAL_DAYS_MAX } from '@ppay/kernel';
import { parseFrequency, trialEnd } from './plan';

const utc = (iso: string) => new Date(iso);

describe('parseFrequency', () => {
  it.each(SUBSCRIPTION_FREQUENCIES)('accepts %s', (key) => {
    expect(parseFrequency(key)).toBe(key);
    expect(isSubscriptionFrequency(key)).toBe(true);
  });

  it.each(['Monthly', 'daily', 'annually', ' monthly', '', null, undefined, 12])('rejects %p', (raw) => {
    expect(() => parseFrequency(raw)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        param: 'subscription_frequency_key',
        message: 'subscription_frequency_key must be one of weekly, monthly, quarterly, biannually, yearly',
      }),
    );
  });
});

describe('trialEnd', () => {
  it('adds whole 24 h days and keeps the time of day', () => {
    expect(trialEnd(utc('2026-03-28T18:00:00.000Z'), 1)).toEqual(utc('2026-03-29T18:00:00.000Z'));
    expect(trialEnd(utc('2028-02-15T07:00:00.000Z'), 14)).toEqual(utc('2028-02-29T07:00:00.000Z'));
    expect(trialEnd(utc('2026-01-01T00:00:00.000Z'), TRIAL_DAYS_MAX)).toEqual(utc('2028-01-01T00:00:00.000Z'));
  });

  it.each([0, -1, 731, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects trial_days %p', (days) => {
    expect(() => trialEnd(utc('2026-01-01T00:00:00.000Z'), days)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', param: 'trial_days' }),
    );
  });
});
