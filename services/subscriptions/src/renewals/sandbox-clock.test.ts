import { checkout, codeOf, setup } from '../service-kit.test-util';
import { parseInstant, renewalsBetween } from './sandbox-clock';

describe('the sandbox clock', () => {
  it('the clock only moves forward, for sandbox keys, on the merchant’s own subscriptions', async () => {
    const { checkouts, clock } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout());
    expect(await codeOf(clock().advance(7, 'sandbox', sub.id, '2026-01-01T00:00:00Z'))).toBe('VALIDATION_FAILED:to');
    expect(await codeOf(clock().advance(7, 'sandbox', sub.id, 'tomorrow'))).toBe('VALIDATION_FAILED:to');
    expect(await codeOf(clock().advance(7, 'sandbox', sub.id, '2040-01-01T00:00:00Z'))).toBe('VALIDATION_FAILED:to');
    expect(await codeOf(clock().advance(7, 'live', sub.id, '2026-03-01T00:00:00Z'))).toBe('PERMISSION_DENIED:');
    expect(await codeOf(clock().advance(8, 'sandbox', sub.id, '2026-03-01T00:00:00Z'))).toBe(
      'SUBSCRIPTION_NOT_FOUND:subscription_id',
    );
  });
});

describe('sandbox clock steps per call (H2-3)', () => {
  it('runs at most 24 renewals in one call: further is 400 CLOCK_ADVANCE_TOO_FAR naming to; steps get there', async () => {
    const { checkouts, clock, payments } = setup();
    const sub = await checkouts.checkoutCompleted('sandbox', checkout({ frequency: 'weekly' }));
    const charges = () => payments.calls.length;
    // 2026-01-31 + 25 weeks: the 25th renewal would be due.
    expect(await codeOf(clock().advance(7, 'sandbox', sub.id, '2026-07-25T10:00:00Z'))).toBe(
      'CLOCK_ADVANCE_TOO_FAR:to',
    );
    expect(charges()).toBe(0);
    await clock().advance(7, 'sandbox', sub.id, '2026-07-18T10:00:00Z');
    expect(charges()).toBe(24);
    await clock().advance(7, 'sandbox', sub.id, '2026-07-25T10:00:00Z');
    expect(charges()).toBe(25);
  });

  it('counts period starts after the clock, none for a paused or cancelled subscription, none past cancel_at', () => {
    const anchor = new Date('2026-01-31T10:00:00Z');
    const rec = { status: 'active' as const, billing_anchor: anchor, frequency: 'monthly' as const, cancel_at: null };
    const at = (iso: string) => new Date(iso);
    expect(renewalsBetween(rec, at('2026-01-31T10:00:00Z'), at('2026-02-28T10:00:00Z'))).toBe(1);
    expect(renewalsBetween(rec, at('2026-01-31T10:00:00Z'), at('2028-01-31T10:00:00Z'))).toBe(24);
    expect(renewalsBetween({ ...rec, status: 'paused' }, anchor, at('2036-01-31T10:00:00Z'))).toBe(0);
    expect(renewalsBetween({ ...rec, cancel_at: at('2026-04-01T00:00:00Z') }, anchor, at('2036-01-31T10:00:00Z'))).toBe(
      2,
    );
    // A trial: the first charge is at its end (the anchor).
    expect(renewalsBetween(rec, at('2026-01-20T00:00:00Z'), at('2026-01-31T10:00:00Z'))).toBe(1);
  });
});

describe('parseInstant (the sandbox clock target, as the gateway schema accepts it)', () => {
  it('reads every RFC 3339 form the schema lets through, and the zone', () => {
    expect(parseInstant('2027-01-31T10:00:00Z').toISOString()).toBe('2027-01-31T10:00:00.000Z');
    expect(parseInstant('2027-01-31t10:00:00z').toISOString()).toBe('2027-01-31T10:00:00.000Z');
    expect(parseInstant('2027-01-31 10:00:00.123456789Z').toISOString()).toBe('2027-01-31T10:00:00.123Z');
    expect(parseInstant('2027-01-31T10:00:00+01:00').toISOString()).toBe('2027-01-31T09:00:00.000Z');
    expect(parseInstant('2027-01-31T10:00:00-0230').toISOString()).toBe('2027-01-31T12:30:00.000Z');
    expect(parseInstant('2016-12-31T23:59:60Z').toISOString()).toBe('2017-01-01T00:00:00.000Z');
    expect(parseInstant('0001-01-01T00:00:00Z').getUTCFullYear()).toBe(1);
    expect(parseInstant('2028-02-29T00:00:00Z').toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('anything else is a 400 naming to', () => {
    for (const bad of [
      '0',
      '2027-02-29T00:00:00Z',
      '2027-13-01T00:00:00Z',
      '2027-01-01T24:00:00Z',
      '2027-01-01',
      'x'.repeat(41),
    ]) {
      expect(() => parseInstant(bad)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', param: 'to' }));
    }
  });
});
