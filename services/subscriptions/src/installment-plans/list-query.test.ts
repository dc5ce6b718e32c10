import { cursorOf, parsePlanListQuery, sortKey } from './list-query';
import { installmentCheckout } from './plan-fixtures.test-util';
import { planSetup } from './plan-kit.test-util';

const MIN = 60_000;

describe('GET /installment-plans query', () => {
  it.each([
    [{ status: 'paused' }, 'VALIDATION_FAILED:status'],
    [{ customer_email: 'x'.repeat(255) }, 'VALIDATION_FAILED:customer_email'],
    [{ from: 'yesterday' }, 'VALIDATION_FAILED:from'],
    [{ to: '2026-13-01T00:00:00Z' }, 'VALIDATION_FAILED:to'],
    [{ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'VALIDATION_FAILED:from'],
    [{ limit: 0 }, 'VALIDATION_FAILED:limit'],
    [{ limit: 101 }, 'VALIDATION_FAILED:limit'],
    [{ limit: '1e2' }, 'VALIDATION_FAILED:limit'],
    [{ cursor: 'not a cursor' }, 'INVALID_CURSOR:cursor'],
    [{ cursor: cursorOf('2026-01-01|ip_1') }, 'INVALID_CURSOR:cursor'],
    [{ cursor: 'A'.repeat(201) }, 'INVALID_CURSOR:cursor'],
  ])('%j → %s', (raw, expected) => {
    let got = 'ok';
    try {
      parsePlanListQuery(raw);
    } catch (e) {
      got = `${(e as { code: string }).code}:${(e as { param?: string }).param ?? ''}`;
    }
    expect(got).toBe(expected);
  });

  it('defaults to 20, newest first; the cursor and `to` both bound the page from above (the earlier wins)', () => {
    expect(parsePlanListQuery({})).toEqual({ limit: 20 });
    const key = sortKey(new Date('2026-01-10T00:00:00Z'), 'ip_9');
    expect(parsePlanListQuery({ cursor: cursorOf(key), to: '2026-02-01T00:00:00Z' }).before_key).toBe(key);
    expect(parsePlanListQuery({ cursor: cursorOf(key), to: '2026-01-05T00:00:00Z' }).before_key).toBe(
      '2026-01-05T00:00:00.000Z',
    );
    expect(parsePlanListQuery({ from: '2026-01-05T01:00:00+01:00' }).from_key).toBe('2026-01-05T00:00:00.000Z');
  });
});

describe('listing plans', () => {
  it('pages newest first with a cursor, filters by status, e-mail and time, and never shows other merchants', async () => {
    const { checkouts, service, tick, realNow } = planSetup();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      await checkouts.checkoutCompleted(
        'sandbox',
        installmentCheckout({
          plan_id: `ip_${i}`,
          session_id: `cs_${i}`,
          completed_at: realNow().toISOString(),
          customer: {
            email: i % 2 ? 'odd@example.com' : 'even@example.com',
            first_name: '',
            last_name: '',
            country: 'NG',
          },
        }),
      );
      made.push(`ip_${i}`);
      tick(MIN);
    }
    await checkouts.checkoutCompleted('sandbox', installmentCheckout({ plan_id: 'ip_other', merchant_id: 8 }));
    await checkouts.checkoutCompleted('live', installmentCheckout({ plan_id: 'ip_live' }));
    await service.cancel(7, 'sandbox', 'ip_3');

    const first = await service.list(7, 'sandbox', { limit: 2 });
    expect(first.plans.map((p) => p.id)).toEqual(['ip_4', 'ip_3']);
    expect(first.has_more).toBe(true);
    const second = await service.list(7, 'sandbox', { limit: 2, cursor: first.next_cursor });
    expect(second.plans.map((p) => p.id)).toEqual(['ip_2', 'ip_1']);
    const last = await service.list(7, 'sandbox', { limit: 2, cursor: second.next_cursor });
    expect(last).toMatchObject({ has_more: false, next_cursor: null });
    expect(last.plans.map((p) => p.id)).toEqual(['ip_0']);

    expect((await service.list(7, 'sandbox', { status: 'cancelled' })).plans.map((p) => p.id)).toEqual(['ip_3']);
    expect((await service.list(7, 'sandbox', { customer_email: 'odd@example.com' })).plans.map((p) => p.id)).toEqual([
      'ip_3',
      'ip_1',
    ]);
    // from inclusive, to exclusive, on created_at (each plan one minute after the previous).
    const at = (i: number) => new Date(Date.parse('2026-01-31T10:00:00Z') + i * MIN).toISOString();
    expect((await service.list(7, 'sandbox', { from: at(1), to: at(3) })).plans.map((p) => p.id)).toEqual([
      'ip_2',
      'ip_1',
    ]);
  });
});
