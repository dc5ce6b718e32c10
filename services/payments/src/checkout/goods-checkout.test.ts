import { PlatformError, type PaymentOutcome } from '@ppay/kernel';
import { checkoutSetup as setup, DECLINED, VISA } from './checkout.test-util';
import type { SessionRequest } from './session-request';

const SHIRT: SessionRequest = {
  product_id: 9,
  variation_id: 'var_xl',
  quantity: 2,
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi' },
};
const ADDRESS = { name: 'Ada Obi', line1: '1 Marina', city: 'Lagos', country: 'ng' };

async function errorOf(p: Promise<unknown>): Promise<[string, string | undefined]> {
  const err = await p.then(
    () => new Error('expected an error'),
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw err;
  return [err.code, err.param];
}

describe('checkout of physical products (GoodsCheckout with SessionService)', () => {
  it('prices the line: price × quantity + shipping, in the product currency or converted once', async () => {
    const { service } = setup();
    const { session } = await service.create(1000, 'sandbox', SHIRT);
    // 2 × ₦4,500.00 (the XL's own price) + ₦1,500.00 shipping
    expect(session.amount).toEqual({ amount: 1_050_000, currency: 'NGN' });
    expect(session.goods).toEqual({
      product_id: 9,
      variation: { variation_id: 'var_xl', name: 'XL' },
      quantity: 2,
      unit_price: { amount: 450_000, currency: 'NGN' },
      shipping_fee: { amount: 150_000, currency: 'NGN' },
      ships_to: ['NG'],
    });
    const usd = await service.create(1000, 'sandbox', { ...SHIRT, currency: 'USD' });
    expect(usd.session.amount).toEqual({ amount: 700, currency: 'USD' }); // ₦10,500 at 1,500 per dollar
    expect(
      (await service.create(1000, 'sandbox', { ...SHIRT, amount: 1_050_000, currency: 'NGN' })).session.amount.amount,
    ).toBe(1_050_000);
  });

  it('refuses what the product cannot sell, naming the field', async () => {
    const { service, products } = setup();
    const create = (over: Partial<SessionRequest>) => errorOf(service.create(1000, 'sandbox', { ...SHIRT, ...over }));
    expect(await create({ amount: 1 })).toEqual(['AMOUNT_MISMATCH', 'amount']);
    expect(await create({ variation_id: undefined })).toEqual(['VALIDATION_FAILED', 'variation_id']);
    expect(await create({ variation_id: 'var_m' })).toEqual(['VALIDATION_FAILED', 'variation_id']);
    expect(await create({ quantity: 0 })).toEqual(['VALIDATION_FAILED', 'quantity']);
    expect(await create({ quantity: 101 })).toEqual(['VALIDATION_FAILED', 'quantity']);
    expect(
      await create({ product_id: 7, quantity: 2, variation_id: undefined, amount: 5_000, currency: 'NGN' }),
    ).toEqual(['VALIDATION_FAILED', 'quantity']);
    products.products.get(9)!.for_sale = false;
    expect(await create({})).toEqual(['PRODUCT_UNAVAILABLE', 'product_id']);
    products.products.get(7)!.for_sale = false; // an archived digital product is not for sale either
    expect(
      await create({ product_id: 7, quantity: undefined, variation_id: undefined, amount: 5_000, currency: 'NGN' }),
    ).toEqual(['PRODUCT_UNAVAILABLE', 'product_id']);
  });

  it('sells a seeded physical product without shipping as it always did: by amount, no address, no order', async () => {
    const { service, products, orders } = setup();
    products.products.set(10, { ...products.products.get(8)!, name: 'Demo radio', shipping: null });
    const request = { product_id: 10, amount: 250_000, currency: 'NGN', customer: SHIRT.customer };
    expect(await errorOf(service.create(1000, 'sandbox', { ...request, quantity: 2 }))).toEqual([
      'VALIDATION_FAILED',
      'quantity',
    ]);
    const { session } = await service.create(1000, 'sandbox', request);
    expect([session.goods, session.amount.amount]).toEqual([null, 250_000]);
    expect((await service.pay(session.session_id, VISA)).result).toBe('succeeded');
    expect(orders).toEqual([]);
  });

  it('takes the shipping address, keeps the units sold and makes one order with the payment', async () => {
    const { service, sessions, stock, orders } = setup();
    stock.levels.set(9, 5);
    const { session } = await service.create(1000, 'sandbox', SHIRT);
    expect(await errorOf(service.pay(session.session_id, VISA))).toEqual(['VALIDATION_FAILED', 'shipping.name']);
    const abroad = service.pay(session.session_id, VISA, { ...ADDRESS, country: 'GH' });
    expect(await errorOf(abroad)).toEqual(['VALIDATION_FAILED', 'shipping.country']);
    const paid = await service.pay(session.session_id, VISA, ADDRESS);
    expect(paid.result).toBe('succeeded');
    expect(await sessions.findById(session.session_id)).toMatchObject({
      shipping_address: { name: 'Ada Obi', line1: '1 Marina', line2: null, city: 'Lagos', country: 'NG' },
      stock_state: 'settled',
    });
    expect([stock.levels.get(9), stock.holds.size]).toEqual([3, 0]);
    expect(orders).toEqual([
      expect.objectContaining({
        product: { id: 9, title: 'Shirt', type: 'physical' },
        variation: { variation_id: 'var_xl', name: 'XL' },
        quantity: 2,
        session_id: session.session_id,
        charge_id: paid.session.payment!.charge_id,
      }),
    ]);
    const succeeded = sessions.events.find((e) => e.subject === 'payments.payment.succeeded')!.data as PaymentOutcome;
    expect(succeeded).toMatchObject({
      product: { id: 9, title: 'Shirt', type: 'physical' },
      variation: { variation_id: 'var_xl', name: 'XL' },
      quantity: 2,
    });
  });

  it("sells for an operator's sub-merchant: the charge splits, the order is the sub-merchant's and shows the split", async () => {
    const { service, splits, orders, charges } = setup();
    splits.set(1000, 2000, { active: true, commission_rate: '0.07', commission_source: 'relationship' });
    splits.set(1000, 3000, { active: false, commission_rate: '0.07', commission_source: 'relationship' });
    const create = (over: Partial<SessionRequest>) => errorOf(service.create(1000, 'sandbox', { ...SHIRT, ...over }));
    expect(await create({ sub_merchant_id: 3000 })).toEqual(['SUB_MERCHANT_NOT_ACTIVE', 'sub_merchant_id']);
    expect(await create({ sub_merchant_id: 4000 })).toEqual(['SUB_MERCHANT_NOT_ACTIVE', 'sub_merchant_id']);
    expect(
      await create({ sub_merchant_id: 2000, quantity: 1, installments: { count: 2, interval: 'monthly' } }),
    ).toEqual(['PHYSICAL_GOODS_NOT_RECURRING', 'installments']);

    const { session } = await service.create(1000, 'sandbox', { ...SHIRT, sub_merchant_id: 2000 });
    const paid = await service.pay(session.session_id, VISA, ADDRESS);
    const chargeId = paid.session.payment!.charge_id;
    expect(await charges.findForMerchant(1000, 'sandbox', chargeId)).toMatchObject({
      sub_merchant_id: 2000,
      split: { commission_rate: '0.07' },
    });
    // ₦10,500.00: 7 % (₦735.00) to the operator, the rest to the sub-merchant, adding up exactly.
    expect(orders).toEqual([
      expect.objectContaining({
        merchant_id: 2000,
        charge_id: chargeId,
        split: {
          operator_id: 1000,
          sub_merchant_id: 2000,
          commission_rate: '0.07',
          commission: { amount: 73_500, currency: 'NGN' },
          sub_merchant_amount: { amount: 976_500, currency: 'NGN' },
        },
      }),
    ]);
  });

  it('a marketplace order shows the split its payment credited: the sub-merchant suspended, or its rate changed, meanwhile', async () => {
    const { service, splits, orders, ledger, credits, sessions } = setup();
    const active = { active: true, commission_rate: '0.07', commission_source: 'relationship' } as const;
    splits.set(1000, 2000, active);
    const suspended = await service.create(1000, 'sandbox', { ...SHIRT, sub_merchant_id: 2000 });
    const repriced = await service.create(1000, 'sandbox', { ...SHIRT, sub_merchant_id: 2000 });
    splits.set(1000, 2000, { ...active, active: false }); // suspended before the customer pays
    const first = await service.pay(suspended.session.session_id, VISA, ADDRESS);
    splits.set(1000, 2000, { ...active, commission_rate: '0.1' }); // back, at a new rate
    const second = await service.pay(repriced.session.session_id, VISA, ADDRESS);
    const creditsOf = (chargeId: string) =>
      [...ledger.entries.values()].filter((e) => e.charge_id === chargeId).map((e) => [e.merchant_id, e.reason]);
    const none = { amount: 0, currency: 'NGN' };
    const [a, b] = [first.session.payment!.charge_id, second.session.payment!.charge_id];
    // Nothing went to the suspended sub-merchant, and its order says so.
    expect(creditsOf(a)).toEqual([[1000, 'marketplace_operator']]);
    expect(orders.find((o) => o.charge_id === a)!.split).toEqual({
      operator_id: 1000,
      sub_merchant_id: 2000,
      commission_rate: '0.07',
      commission: none,
      sub_merchant_amount: none,
    });
    // 10 % of ₦10,500.00 at the rate the payment was credited at, not the session's 7 %.
    expect(creditsOf(b)).toEqual([
      [2000, 'marketplace_split'],
      [1000, 'marketplace_operator'],
    ]);
    expect(orders.find((o) => o.charge_id === b)!.split).toMatchObject({
      commission_rate: '0.1',
      commission: { amount: 105_000, currency: 'NGN' },
      sub_merchant_amount: { amount: 945_000, currency: 'NGN' },
    });
    // The ledger's consumer of payment.succeeded, later, finds the decision made: it credits nothing more.
    splits.set(1000, 2000, active);
    const succeeded = sessions.events.find(
      (e) => e.subject === 'payments.payment.succeeded' && (e.data as PaymentOutcome).charge_id === a,
    )!;
    expect((await credits.record(succeeded.data as PaymentOutcome, 'sandbox', 'evt_1')).inserted).toEqual([]);
    expect(creditsOf(a)).toEqual([[1000, 'marketplace_operator']]);
  });

  it('answers sold out without charging when the units are gone, and gives back a declined card’s', async () => {
    const { service, stock, cards, orders } = setup();
    stock.levels.set(9, 1);
    const { session } = await service.create(1000, 'sandbox', SHIRT);
    const sold = await service.pay(session.session_id, VISA, ADDRESS);
    expect(sold).toMatchObject({ result: 'sold_out', message: expect.stringContaining('sold out') });
    expect([cards.payments.length, sold.session.status, sold.session.in_flight]).toEqual([0, 'pending', null]);
    stock.levels.set(9, 2);
    expect((await service.pay(session.session_id, DECLINED, ADDRESS)).result).toBe('declined');
    expect([stock.levels.get(9), stock.holds.size]).toEqual([2, 0]);
    expect((await service.pay(session.session_id, VISA, ADDRESS)).result).toBe('succeeded');
    expect([stock.levels.get(9), orders.length]).toEqual([0, 1]);
  });

  it('gives back a declined card’s units when fx-pricing was lost at that moment (the sweep), the session still open', async () => {
    const { service, goods, stock, sessions } = setup();
    stock.levels.set(9, 5);
    const { session } = await service.create(1000, 'sandbox', SHIRT);
    stock.settleDown = true; // fx-pricing gone between the hold and its release
    expect((await service.pay(session.session_id, DECLINED, ADDRESS)).result).toBe('declined');
    expect([stock.levels.get(9), stock.holds.size]).toEqual([3, 1]);
    await expect(goods.settleStock()).rejects.toThrow('fx-pricing unavailable'); // tried again on the next pass
    stock.settleDown = false;
    expect(await goods.settleStock()).toBe(1);
    expect([stock.levels.get(9), stock.holds.size]).toEqual([5, 0]);
    expect(await sessions.findById(session.session_id)).toMatchObject({ status: 'pending', stock_state: 'open' });
    expect(await goods.settleStock()).toBe(0);
    // Another card may still take them.
    expect((await service.pay(session.session_id, VISA, ADDRESS)).result).toBe('succeeded');
    expect([stock.levels.get(9), stock.holds.size]).toEqual([3, 0]);
  });

  it('never gives back the units a new attempt on the session is paying with', async () => {
    const { service, goods, stock, cards, orders } = setup();
    stock.levels.set(9, 2);
    const { session } = await service.create(1000, 'sandbox', SHIRT);
    stock.settleDown = true;
    expect((await service.pay(session.session_id, DECLINED, ADDRESS)).result).toBe('declined');
    stock.settleDown = false;
    // The customer tries another card: the attempt finds the session's hold and keeps it.
    let approve = () => undefined as void;
    cards.gate = new Promise<void>((resolve) => (approve = resolve));
    const second = service.pay(session.session_id, VISA, ADDRESS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(cards.payments).toHaveLength(2); // the second card is being charged
    expect(await goods.settleStock()).toBe(0); // the sweep meets the attempt's claim and leaves the hold
    approve();
    expect((await second).result).toBe('succeeded');
    // Both units sold once: none given back from under the paid attempt, none left held.
    expect([stock.levels.get(9), stock.holds.size, orders.length]).toEqual([0, 0, 1]);
    const { session: next } = await service.create(1000, 'sandbox', SHIRT);
    expect((await service.pay(next.session_id, VISA, ADDRESS)).result).toBe('sold_out');
  });

  it('copies the charge before the order a crash left to the payment.succeeded consumer, so a cancel can refund it', async () => {
    const { service, goods, stock, charges, orders } = setup();
    stock.levels.set(9, 5);
    const { session } = await service.create(1000, 'sandbox', SHIRT);
    const chargeId = (await service.pay(session.session_id, VISA, ADDRESS)).session.payment!.charge_id;
    // What the process had written when it died right after the session: neither the charge copy nor the order.
    charges.docs.delete(chargeId);
    orders.length = 0;
    await goods.onPaymentSucceeded(session.session_id);
    expect(orders.map((o) => o.charge_id)).toEqual([chargeId]);
    expect(await charges.findForMerchant(1000, 'sandbox', chargeId)).toMatchObject({ status: 'succeeded' });
    await goods.onPaymentSucceeded(session.session_id); // a redelivery changes nothing
    expect([orders.length, charges.docs.size]).toEqual([1, 1]);
  });

  it('never oversells: 20 customers paying at once for the last 5 units', async () => {
    const { service, stock, cards, orders } = setup();
    stock.levels.set(9, 5);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await service.create(1000, 'sandbox', { ...SHIRT, quantity: 1 })).session.session_id);
    const results = await Promise.all(ids.map((id) => service.pay(id, VISA, ADDRESS)));
    expect(results.filter((r) => r.result === 'succeeded')).toHaveLength(5);
    expect(results.filter((r) => r.result === 'sold_out')).toHaveLength(15);
    expect([cards.payments.length, orders.length, stock.levels.get(9)]).toEqual([5, 5, 0]);
  });

  it('gives back the units of a session that can no longer pay, and keeps those a crash left sold (the sweep)', async () => {
    const { service, goods, stock, sessions, advance } = setup();
    stock.levels.set(9, 5);
    const { session: abandoned } = await service.create(1000, 'sandbox', SHIRT);
    await goods.hold(abandoned); // the customer submitted, then the process died before the card was charged
    expect(stock.levels.get(9)).toBe(3);
    const { session: paid } = await service.create(1000, 'sandbox', SHIRT);
    stock.down = true; // fx-pricing unreachable right after the payment
    await expect(service.pay(paid.session_id, VISA, ADDRESS)).rejects.toThrow('fx-pricing unavailable');
    stock.down = false;
    await service.pay(paid.session_id, VISA, ADDRESS);
    expect((await sessions.findById(paid.session_id))!.stock_state).toBe('settled');
    advance(31 * 60_000);
    await service.sweepExpired();
    expect(await goods.settleStock()).toBe(1);
    // 5 − the 2 sold; the abandoned session's 2 came back.
    expect([stock.levels.get(9), stock.holds.size]).toEqual([3, 0]);
    expect(await goods.settleStock()).toBe(0);
  });
});
