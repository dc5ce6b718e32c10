import { newDelivery, type AttemptRecord } from '../deliveries/delivery';
import { paymentEvent, setup } from '../memory-world.test-util';
import { EVENT_VIEW_LIMITS } from './attempt-views';

describe('EventLog', () => {
  it('lists newest first with cursor paging, filters, and scopes to merchant and mode', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    for (let i = 0; i < 5; i++) {
      await t.ingest(paymentEvent(`s${i}`, { charge_id: `c${i}`, completed_at: `2026-05-01T10:00:0${i}.000Z` }));
    }
    await t.ingest(paymentEvent('live', {}, 'live'));
    const p1 = await t.log.list(1, 'sandbox', { limit: 2 });
    expect(p1.events.map((e) => e.object_id)).toEqual(['c4', 'c3']);
    expect(p1.has_more).toBe(true);
    const p2 = await t.log.list(1, 'sandbox', { limit: 2, cursor: p1.next_cursor! });
    expect(p2.events.map((e) => e.object_id)).toEqual(['c2', 'c1']);
    const p3 = await t.log.list(1, 'sandbox', { limit: 2, cursor: p2.next_cursor! });
    expect(p3).toMatchObject({ has_more: false, next_cursor: null });
    expect(p3.events.map((e) => e.object_id)).toEqual(['c0']);
    expect((await t.log.list(1, 'sandbox', { delivery_status: 'pending' })).events).toHaveLength(5);
    expect((await t.log.list(1, 'sandbox', { types: ['payment.failed'] })).events).toHaveLength(0);
    expect((await t.log.list(2, 'sandbox', {})).events).toHaveLength(0);
    await expect(t.log.list(1, 'sandbox', { cursor: 'nonsense' })).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    const live = (await t.log.list(1, 'live', {})).events;
    expect(live).toHaveLength(1);
    await expect(t.log.get(1, 'sandbox', live[0]!.event_id)).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });

  it('allows 5 resends of an event per hour, then 429 RESEND_LIMIT_REACHED with when to retry (H2-3)', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('s1'));
    await t.ingest(paymentEvent('s2', { charge_id: 'c2' }));
    const [first, second] = [...t.events.events.keys()];
    for (let i = 0; i < 5; i++) await t.log.resend(1, 'sandbox', first!);
    const refused = await t.log.resend(1, 'sandbox', first!).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'RESEND_LIMIT_REACHED', httpStatus: 429 });
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(3_590);
    await expect(t.log.resend(1, 'sandbox', second!)).resolves.toMatchObject({ event_id: second });
    // The window ends an hour after it opened.
    t.events.resends.get(first!)!.start = new Date(Date.now() - 60 * 60 * 1000 - 1);
    await expect(t.log.resend(1, 'sandbox', first!)).resolves.toMatchObject({ event_id: first });
  });

  it('recover resends failed deliveries in the window (dry run counts only)', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('s1'));
    for (const d of t.deliveries.rows.values()) d.status = 'failed';
    const since = new Date(Date.now() - 60_000);
    expect(await t.log.recover(1, 'sandbox', { since, dry_run: true })).toEqual({ count: 1, dry_run: true });
    expect([...t.deliveries.rows.values()][0]!.status).toBe('failed');
    expect(await t.log.recover(1, 'sandbox', { since })).toEqual({ count: 1, dry_run: false });
    expect([...t.deliveries.rows.values()][0]!.status).toBe('pending');
    await expect(t.log.recover(1, 'sandbox', { since: new Date(), until: since })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('purges events and deliveries older than 30 days', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('s1'));
    for (const e of t.events.events.values()) e.created_at = new Date(Date.now() - 31 * 86_400_000);
    for (const d of t.deliveries.rows.values()) d.created_at = new Date(Date.now() - 31 * 86_400_000);
    await t.ingest(paymentEvent('s2', { charge_id: 'c2' }));
    expect(await t.log.purgeExpired()).toBe(2);
    expect(t.events.events.size).toBe(1);
  });

  it('pings a key with a signed ping and reports the answer', async () => {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    t.keys.add({ key_id: 'k_none', webhook_url: null });
    t.sender.answer = () => ({ status: 200, success: true, duration_ms: 12 });
    const res = await t.log.ping(1, 'k');
    expect(res.result).toMatchObject({ status: 200, success: true, duration_ms: 12 });
    expect(JSON.parse(t.sender.sent[0]!.body)).toMatchObject({ event_type: 'ping', event_id: res.event_id });
    await expect(t.log.ping(2, 'k')).rejects.toMatchObject({ code: 'API_KEY_NOT_FOUND' });
    await expect(t.log.ping(1, 'k_none')).rejects.toMatchObject({ code: 'WEBHOOK_URL_NOT_SET' });
  });
});

describe('EventLog answers are bounded by design (Hardening 2, H2-1)', () => {
  const bigAttempt = (number: number, body: string): AttemptRecord => ({
    number,
    started_at: new Date('2026-05-01T10:00:00.000Z'),
    duration_ms: 10_000,
    status: 504,
    error_class: 'http_error',
    success: false,
    response_excerpt: 'é'.repeat(1024),
    url: `https://example.com/${'p'.repeat(2_000)}`,
    api_version: '2026-03-27',
    request_headers: { 'x-service-signature': 's'.repeat(200), 'x-service-event': 'payment.succeeded' },
    request_body: body,
  });

  /** An event of ~250 KB, 25 deliveries of 12 attempts each carrying a 100 KB body: ~30 MB of history. */
  async function heavyEvent() {
    const t = setup();
    t.keys.add({ key_id: 'k' });
    await t.ingest(paymentEvent('s1', { metadata: { note: 'n'.repeat(250_000) } }));
    const event = [...t.events.events.values()][0]!;
    const body = `{"data":"${'b'.repeat(100_000)}"}`;
    for (let k = 0; k < 25; k++) {
      const d = newDelivery(event, `key_${k}`, new Date(Date.now() + k));
      d.attempts = Array.from({ length: 12 }, (_, i) => bigAttempt(i + 1, `${body}${i}`));
      t.deliveries.rows.set(d.delivery_id, d);
    }
    return { t, event, body };
  }

  it('an event shows each delivery’s 3 newest attempts with bodies cut, at most 20 deliveries, well inside 4 MiB', async () => {
    const { t, event, body } = await heavyEvent();
    const got = await t.log.get(1, 'sandbox', event.event_id);
    expect(Buffer.byteLength(JSON.stringify(got))).toBeLessThan(2 * 1024 * 1024);
    expect(got.deliveries.length).toBeLessThanOrEqual(EVENT_VIEW_LIMITS.deliveriesPerEvent);
    const shown = got.deliveries.find((d) => d.key_id === 'key_0')!;
    expect(shown.attempts.map((a) => a.number)).toEqual([10, 11, 12]);
    expect(shown.attempts_has_more).toBe(true);
    expect(shown.attempts[0]).toMatchObject({
      request_body: `${body}9`.slice(0, 2_048),
      request_body_truncated: true,
      request_body_bytes: body.length + 1,
    });
  });

  it('pages a delivery’s attempts oldest first and answers one attempt with its whole body', async () => {
    const { t, event, body } = await heavyEvent();
    const delivery = [...t.deliveries.rows.values()].find((d) => d.key_id === 'key_3')!;
    const ref = { event_id: event.event_id, delivery_id: delivery.delivery_id };
    const p1 = await t.log.attempts(1, 'sandbox', ref, { limit: 5 });
    expect(p1.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5]);
    expect(p1.attempts.every((a) => a.request_body.length === 2_048 && a.request_body_truncated)).toBe(true);
    const p3 = await t.log.attempts(1, 'sandbox', ref, {
      limit: 5,
      cursor: (await t.log.attempts(1, 'sandbox', ref, { limit: 5, cursor: p1.next_cursor! })).next_cursor!,
    });
    expect(p3).toMatchObject({ has_more: false, next_cursor: null });
    expect(p3.attempts.map((a) => a.number)).toEqual([11, 12]);
    expect(await t.log.attempt(1, 'sandbox', { ...ref, number: 7 })).toMatchObject({
      request_body: `${body}6`,
      request_body_truncated: false,
    });
    await expect(t.log.attempt(1, 'sandbox', { ...ref, number: 13 })).rejects.toMatchObject({
      code: 'ATTEMPT_NOT_FOUND',
    });
    await expect(t.log.attempts(2, 'sandbox', ref, {})).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
    await expect(t.log.attempts(1, 'sandbox', { ...ref, delivery_id: 'dlv_other' }, {})).rejects.toMatchObject({
      code: 'DELIVERY_NOT_FOUND',
    });
    await expect(t.log.attempts(1, 'sandbox', ref, { cursor: 'bogus' })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
  });

  it('a page of events carries about 1 MiB of data at most, and the cursor continues after it', async () => {
    const t = setup();
    for (let i = 0; i < 8; i++) {
      await t.ingest(
        paymentEvent(`s${i}`, {
          charge_id: `c${i}`,
          completed_at: `2026-05-01T10:00:0${i}.000Z`,
          metadata: { note: 'n'.repeat(200_000) },
        }),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 8; pages++) {
      const page = await t.log.list(1, 'sandbox', { limit: 100, cursor });
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThan(1.5 * 1024 * 1024);
      seen.push(...page.events.map((e) => e.object_id));
      if (!page.has_more) break;
      cursor = page.next_cursor!;
    }
    expect(seen).toEqual(['c7', 'c6', 'c5', 'c4', 'c3', 'c2', 'c1', 'c0']);
  });
});
