import { paymentEvent, setup } from '../memory-world.test-util';

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
