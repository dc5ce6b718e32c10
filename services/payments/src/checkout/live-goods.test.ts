import { ERROR_CATALOGUE, money } from '@ppay/kernel';
import { rejectionOf } from '../errors.test-util';
import { completedCheckoutSession, retrievedSessionId, scriptedStripe } from '../processors/stripe/stripe.test-util';
import { checkoutGoodsOf, LIVE_HOLD_GRACE_MS } from './live-goods';
import { checkoutEventJson, liveCheckoutSetup } from './live-checkout.test-util';
import type { SessionRecord } from './session';
import type { SessionRequest } from './session-request';

/**
 * Live hosted checkout of physical goods on Stripe (docs/decisions.md, S32–S35): the units held from the
 * session's creation, the address collected on Stripe's page, the order made by Stripe's completed
 * event, the units given back by its expiry, never sold twice.
 */
const SHIRT: SessionRequest = {
  product_id: 9,
  variation_id: 'var_xl',
  quantity: 2,
  currency: 'USD',
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi' },
  success_url: 'https://shop.example/thanks',
  cancel_url: 'https://shop.example/cart',
};
const SHIPPING = {
  name: 'Ada Obi',
  address: { line1: '1 Marina', line2: null, city: 'Lagos', state: 'LA', postal_code: '101001', country: 'NG' },
};

let stripe: Awaited<ReturnType<typeof scriptedStripe>>;
/** Answers Stripe would give next instead of a Checkout Session (then sessions again). */
let failures: { status: number; json: unknown }[] = [];
beforeEach(async () => {
  failures = [];
  stripe = await scriptedStripe((req, body) => {
    const read = retrievedSessionId(req);
    if (read) return completedCheckoutSession({ id: read, intent: `pi_${read.replace(/^cs_test_/, '')}` });
    if (req.url !== '/v1/checkout/sessions') return { status: 404, json: { error: { type: 'invalid_request_error' } } };
    const failure = failures.shift();
    if (failure) return failure;
    const id = `cs_test_${new URLSearchParams(body).get('metadata[session_id]')}`;
    return { status: 200, json: { id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}` } };
  });
});
afterEach(() => stripe.close());

const form = (n: number) => Object.fromEntries(new URLSearchParams(stripe.seen[n]!.body));
const completed = (id: string, s: SessionRecord, object: Record<string, unknown> = {}) =>
  checkoutEventJson(id, 'checkout.session.completed', s, {
    collected_information: { business_name: null, individual_name: null, shipping_details: SHIPPING },
    ...object,
  });
const expired = (id: string, s: SessionRecord) => checkoutEventJson(id, 'checkout.session.expired', s);

function setup(units = 5) {
  const t = liveCheckoutSetup(stripe);
  t.stock.levels.set(9, units);
  const session = async (request: SessionRequest = SHIRT) => (await t.service.create(1000, 'live', request)).session;
  const stored = async (id: string) => (await t.sessions.findById(id))!;
  return { ...t, session, stored };
}

describe('live hosted checkout of physical goods on Stripe', () => {
  it('holds the units when the session is made, then opens a Checkout Session that ships and charges the total', async () => {
    const t = setup();
    const s = await t.session();
    // 2 × ₦4,500 + ₦1,500 shipping = ₦10,500 = $7.00 (the customer pays no fee here).
    expect(s).toMatchObject({
      status: 'pending',
      amount: money(700, 'USD'),
      gateway_session_id: `cs_test_${s.session_id}`,
      payment_url: `https://checkout.stripe.com/c/pay/cs_test_${s.session_id}`,
      stock_state: 'held',
      in_flight: null,
    });
    expect([t.stock.levels.get(9), t.stock.holds.get(s.session_id)?.quantity]).toEqual([3, 2]);
    expect(stripe.seen).toHaveLength(1);
    expect(stripe.seen[0]!.headers['idempotency-key']).toBe(`ppay_${s.session_id}_checkout_session`);
    const sent = form(0);
    expect(sent).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '300',
      'line_items[0][price_data][product_data][name]': 'Shirt (XL)',
      'line_items[0][quantity]': '2',
      'shipping_address_collection[allowed_countries][0]': 'NG',
      'shipping_options[0][shipping_rate_data][type]': 'fixed_amount',
      'shipping_options[0][shipping_rate_data][display_name]': 'Shipping',
      'shipping_options[0][shipping_rate_data][fixed_amount][amount]': '100',
      'shipping_options[0][shipping_rate_data][fixed_amount][currency]': 'usd',
      'metadata[session_id]': s.session_id,
      success_url: `https://shop.example/thanks?session_id=${s.session_id}`,
    });
    // One product line and one shipping option: what Stripe charges is 2 × 300 + 100, the session's total.
    expect(Object.keys(sent).filter((k) => /^(line_items\[1\]|shipping_options\[1\])/.test(k))).toEqual([]);
    expect(Object.keys(sent).some((k) => k.startsWith('shipping_address_collection[allowed_countries][1]'))).toBe(
      false,
    );
  });

  it('lists a fee the customer pays and an amount that does not divide by the quantity, adding up to the total', async () => {
    const t = setup();
    t.merchants.add({ merchant_id: 1000, business_name: 'Ada & Sons', customer_pays_fees: true });
    const s = await t.session({ ...SHIRT, variation_id: 'var_s', quantity: 3 });
    // 3 × ₦4,000 + ₦1,500 = ₦13,500 = $9.00; its shipping share $1.00; fee 2.9% + 30¢ = 56¢.
    expect(s.fee_details).toMatchObject({ base: money(900, 'USD'), total: money(956, 'USD') });
    expect(form(0)).toMatchObject({
      'line_items[0][price_data][unit_amount]': '800',
      'line_items[0][price_data][product_data][name]': 'Shirt (S) × 3',
      'line_items[0][quantity]': '1',
      'line_items[1][price_data][unit_amount]': '56',
      'line_items[1][price_data][product_data][name]': 'Transaction fee',
      'line_items[1][quantity]': '1',
      'shipping_options[0][shipping_rate_data][fixed_amount][amount]': '100',
    });
  });

  it('the lines and the shipping option always add up to the total, converted or not', () => {
    for (const [unit, qty, ship, base, fee] of [
      [450_000, 2, 150_000, 700, 0],
      [1, 100, 999, 7, 3],
      [333, 7, 1, 17, 31],
      [0, 1, 500, 50, 0],
      [250, 4, 0, 1_000, 59],
    ] as const) {
      const line = {
        product_id: 9,
        variation: null,
        quantity: qty,
        unit_price: money(unit, 'NGN'),
        shipping_fee: money(ship, 'NGN'),
        ships_to: ['NG'],
      };
      const fee_details = {
        base: money(base, 'USD'),
        fee: money(fee, 'USD'),
        total: money(base + fee, 'USD'),
        customer_pays_fees: fee > 0,
      };
      const goods = checkoutGoodsOf({ goods: line, fee_details, product: { id: 9, name: 'Thing', type: 'physical' } })!;
      const sum = goods.lines.reduce((n, l) => n + l.unit_amount.amount * l.quantity, goods.shipping.amount);
      expect([sum, goods.lines.every((l) => l.unit_amount.amount >= 0), goods.shipping.amount >= 0]).toEqual([
        base + fee,
        true,
        true,
      ]);
    }
  });

  it('sold out: 409 STOCK_INSUFFICIENT, nothing stored, nothing held, Stripe never asked', async () => {
    const t = setup(1);
    const err = await rejectionOf(t.service.create(1000, 'live', SHIRT));
    expect([err.code, ERROR_CATALOGUE[err.code].http, err.param, err.detail]).toEqual([
      'STOCK_INSUFFICIENT',
      409,
      'variation_id',
      'sold_out',
    ]);
    expect([t.sessions.docs.size, t.stock.holds.size, t.stock.levels.get(9), stripe.seen.length]).toEqual([0, 0, 1, 0]);
  });

  it('never oversold: 12 live creates racing for 5 units open exactly 5 sessions', async () => {
    const t = setup(5);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => t.service.create(1000, 'live', { ...SHIRT, quantity: 1 })),
    );
    const made = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.session] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : []));
    expect([made.length, refused]).toEqual([5, Array(7).fill('STOCK_INSUFFICIENT')]);
    expect(made.every((s) => s.stock_state === 'held' && s.gateway_session_id.startsWith('cs_test_'))).toBe(true);
    expect([t.stock.levels.get(9), [...t.stock.holds.keys()].sort()]).toEqual([
      0,
      made.map((s) => s.session_id).sort(),
    ]);
    expect([stripe.seen.length, t.sessions.docs.size]).toEqual([5, 5]);
  });

  it('Stripe failing gives the units back at once and keeps nothing; a repeat with the Idempotency-Key starts afresh', async () => {
    const t = setup();
    failures.push({ status: 500, json: { error: { type: 'api_error', message: 'Stripe is down' } } });
    const request = { ...SHIRT, idempotency_key: 'cart-7' };
    expect((await rejectionOf(t.service.create(1000, 'live', request))).code).toBe('SERVICE_UNAVAILABLE');
    // Stripe keeps its answer to a key, errors too: the session that key was for is gone with its units.
    expect([t.stock.levels.get(9), t.stock.holds.size, t.sessions.docs.size]).toEqual([5, 0, 0]);
    const failedKey = stripe.seen[0]!.headers['idempotency-key'];
    const again = await t.service.create(1000, 'live', request);
    expect(again.replayed).toBe(false);
    expect(again.session).toMatchObject({
      gateway_session_id: `cs_test_${again.session.session_id}`,
      stock_state: 'held',
    });
    expect(stripe.seen[1]!.headers['idempotency-key']).toBe(`ppay_${again.session.session_id}_checkout_session`);
    expect(stripe.seen[1]!.headers['idempotency-key']).not.toBe(failedKey);
    expect([t.stock.levels.get(9), t.sessions.docs.size]).toEqual([3, 1]);
    // Answered from then on as it is, Stripe not asked again.
    expect((await t.service.create(1000, 'live', request)).session.session_id).toBe(again.session.session_id);
    expect(stripe.seen).toHaveLength(2);
  });

  it('a create a crash stopped before Stripe was asked is finished by its repeat with the Idempotency-Key', async () => {
    const t = setup();
    const request = { ...SHIRT, idempotency_key: 'cart-8' };
    // Stored and held, then the process died: its claim goes stale, nobody has its page.
    const { session } = await t.service.create(1000, 'sandbox', { ...SHIRT });
    const crashed = { ...session, session_id: 'cs_crashed', mode: 'live' as const, gateway_session_id: '' };
    const record = {
      ...crashed,
      idempotency_key: 'cart-8',
      in_flight: { attempt_id: 'att_dead', started_at: t.now() },
    };
    await t.sessions.insertOrGetByIdempotencyKey(record);
    await t.stock.hold(
      { merchant_id: 1000, mode: 'live', product_id: 9, variation_id: 'var_xl', quantity: 2 },
      'cs_crashed',
    );
    expect(t.stock.levels.get(9)).toBe(3);
    expect((await rejectionOf(t.service.create(1000, 'live', request))).code).toBe('CONFLICT'); // still claimed
    t.advance(31_000);
    const again = await t.service.create(1000, 'live', request);
    expect(again).toMatchObject({ replayed: true, session: { session_id: 'cs_crashed', stock_state: 'held' } });
    expect(again.session.gateway_session_id).toBe('cs_test_cs_crashed');
    expect([t.stock.levels.get(9), t.stock.holds.size, stripe.seen.length]).toEqual([3, 1, 1]);
  });

  it('two creates racing with one Idempotency-Key make one session, one hold and one Checkout Session', async () => {
    const t = setup();
    const request = { ...SHIRT, idempotency_key: 'cart-9' };
    const results = await Promise.allSettled([1, 2, 3].map(() => t.service.create(1000, 'live', request)));
    const ids = new Set(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.session.session_id] : [])));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : []));
    // A repeat that finds the first still opening it is told to repeat (409), never given a second session.
    expect([ids.size, refused.every((code) => code === 'CONFLICT')]).toEqual([1, true]);
    expect([t.sessions.docs.size, t.stock.holds.size, t.stock.levels.get(9), stripe.seen.length]).toEqual([1, 1, 3, 1]);
    const [id] = [...ids];
    expect((await t.service.create(1000, 'live', request)).session).toMatchObject({
      session_id: id,
      stock_state: 'held',
    });
  });

  it('a crash between the hold and the Checkout Session leaves units the stock sweep gives back once it expires', async () => {
    const t = setup();
    // fx-pricing lost as Stripe fails: the units stay held by a session nobody can pay, as after a crash.
    t.stock.settleDown = true;
    failures.push({ status: 500, json: { error: { type: 'api_error' } } });
    await rejectionOf(t.service.create(1000, 'live', SHIRT));
    t.stock.settleDown = false;
    const [s] = [...t.sessions.docs.values()];
    expect([s!.stock_state, t.stock.levels.get(9), await t.goods.settleStock()]).toEqual(['open', 3, 0]);
    // Stripe's session (made, its answer lost) expires: nobody was given it, nothing to apply.
    const event = expired('evt_lost', { ...s!, gateway_session_id: 'cs_test_lost' });
    expect(await t.deliver(event)).toBe('stale');
    t.advance(31 * 60_000);
    await t.service.sweepExpired();
    expect(await t.goods.settleStock()).toBe(1);
    expect([t.stock.levels.get(9), t.stock.holds.size, (await t.stored(s!.session_id)).stock_state]).toEqual([
      5,
      0,
      'settled',
    ]);
  });

  it('checkout.session.completed: the address and the units sold in one write, then one order; repeats change nothing', async () => {
    const t = setup();
    const s = await t.session();
    expect(await t.deliver(completed('evt_done_1', s))).toBe('applied');
    const done = await t.stored(s.session_id);
    expect(done).toMatchObject({
      status: 'completed',
      payment: { status: 'succeeded', processor_reference: `pi_${s.session_id}` },
      shipping_address: {
        name: 'Ada Obi',
        line1: '1 Marina',
        line2: null,
        city: 'Lagos',
        state: 'LA',
        postal_code: '101001',
        country: 'NG',
        phone: null,
      },
      stock_state: 'settled', // committed: the units stay sold
    });
    expect([t.stock.levels.get(9), t.stock.holds.size]).toEqual([3, 0]);
    expect(t.orders).toHaveLength(1);
    expect(t.orders[0]).toMatchObject({
      mode: 'live',
      session_id: s.session_id,
      charge_id: done.payment!.charge_id,
      quantity: 2,
      variation: { variation_id: 'var_xl', name: 'XL' },
      shipping_address: { city: 'Lagos', country: 'NG' },
    });
    expect(t.sessions.events.map((e) => [e.subject, (e.data as { quantity: number }).quantity])).toEqual([
      ['payments.payment.succeeded', 2],
    ]);
    // Stripe again, then an expiry after the payment: one order, the units still sold.
    expect(await t.deliver(completed('evt_done_2', s))).toBe('duplicate');
    expect(await t.deliver(expired('evt_exp_1', s))).toBe('stale');
    expect([t.orders.length, t.sessions.events.length, t.stock.levels.get(9)]).toEqual([1, 1, 3]);
  });

  it.each([
    ['no address', { collected_information: null }, 'the event carries no shipping address'],
    [
      'a country the product does not ship to',
      { collected_information: { shipping_details: { ...SHIPPING, address: { ...SHIPPING.address, country: 'GH' } } } },
      'does not ship to GH',
    ],
    [
      'a name longer than ours may be',
      { collected_information: { shipping_details: { ...SHIPPING, name: 'A'.repeat(450) } } },
      'shipping.name',
    ],
  ])('a completed event with %s is a mismatch, never applied', async (_what, object, note) => {
    const t = setup();
    const s = await t.session();
    expect(await t.deliver(completed('evt_bad', s, object))).toBe('mismatch');
    expect(t.events.docs.get('stripe:evt_bad')!.note).toContain(note);
    expect(await t.stored(s.session_id)).toMatchObject({ status: 'pending', stock_state: 'held' });
    expect([t.orders.length, t.sessions.events.length, t.stock.holds.size]).toEqual([0, 0, 1]);
  });

  it('our clock alone never gives the units back: a payment Stripe took before its expiry completes with them', async () => {
    const t = setup();
    const s = await t.session();
    t.advance(40 * 60_000);
    await t.service.sweepExpired();
    expect(await t.goods.settleStock()).toBe(0);
    expect(await t.stored(s.session_id)).toMatchObject({ status: 'expired', stock_state: 'held' });
    expect(await t.deliver(completed('evt_late', s))).toBe('applied');
    expect([(await t.stored(s.session_id)).status, t.orders.length, t.stock.levels.get(9)]).toEqual([
      'completed',
      1,
      3,
    ]);
  });

  it('checkout.session.expired gives the units back, once, whether or not our clock expired the session', async () => {
    const t = setup();
    const first = await t.session();
    const second = await t.session();
    expect(t.stock.levels.get(9)).toBe(1);
    expect(await t.deliver(expired('evt_exp_1', first))).toBe('applied');
    t.advance(40 * 60_000);
    await t.service.sweepExpired();
    expect(await t.deliver(expired('evt_exp_2', second))).toBe('applied');
    expect(await t.deliver(expired('evt_exp_3', second))).toBe('duplicate');
    for (const s of [first, second]) {
      expect(await t.stored(s.session_id)).toMatchObject({ status: 'expired', stock_state: 'settled' });
    }
    expect([t.stock.levels.get(9), t.stock.holds.size, t.orders.length]).toEqual([5, 0, 0]);
  });

  it('units on their way back are taken again for a payment once they are back; never while fx-pricing is told', async () => {
    const t = setup();
    const s = await t.session();
    t.stock.settleDown = true; // fx-pricing does not hear of the expiry yet: the units are `release`
    expect(await t.deliver(expired('evt_exp', s))).toBe('applied');
    expect((await t.stored(s.session_id)).stock_state).toBe('release');
    expect(await t.deliver(completed('evt_done', s))).toBe('received'); // tried again later
    t.stock.settleDown = false;
    expect(await t.goods.settleStock()).toBe(1);
    t.advance(60_000);
    await t.inbox.applyDue();
    expect(t.events.docs.get('stripe:evt_done')!.status).toBe('applied');
    expect(await t.stored(s.session_id)).toMatchObject({ status: 'completed', stock_state: 'settled' });
    expect([t.stock.levels.get(9), t.stock.holds.size, t.orders.length]).toEqual([3, 0, 1]);
  });

  it('no word from Stripe: the sweep gives the units back after the grace period; a later payment takes them again or is kept for a refund', async () => {
    const t = setup(4);
    const a = await t.session();
    const b = await t.session();
    // Stripe's expiry (ours raised to its minimum), then the grace period less a minute.
    t.advance(b.expires_at.getTime() - t.now().getTime() + LIVE_HOLD_GRACE_MS - 60_000);
    expect(await t.liveGoods.releaseUnheard()).toBe(0); // Stripe may still be retrying an event
    t.advance(2 * 60_000);
    expect(await t.liveGoods.releaseUnheard()).toBe(2);
    expect([t.stock.levels.get(9), t.stock.holds.size]).toEqual([4, 0]);
    expect(await t.stored(a.session_id)).toMatchObject({ status: 'expired', stock_state: 'settled' });
    // An event resent much later: units are left for the first, which takes them again.
    expect(await t.deliver(completed('evt_a', a))).toBe('applied');
    expect([t.stock.levels.get(9), t.orders.length]).toEqual([2, 1]);
    // The rest is sold meanwhile: the second payment is kept for an operator to refund, not sold twice.
    t.stock.levels.set(9, 1);
    expect(await t.deliver(completed('evt_b', b))).toBe('stale');
    expect(t.events.docs.get('stripe:evt_b')!.note).toContain('refund the payment');
    expect([t.stock.levels.get(9), t.orders.length, (await t.stored(b.session_id)).status]).toEqual([1, 1, 'expired']);
  });
});
