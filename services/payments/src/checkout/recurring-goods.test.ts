import { PlatformError } from '@ppay/kernel';
import { checkoutSetup as setup, VISA } from './checkout.test-util';
import type { SessionRequest } from './session-request';

/** Product 9 of FakeProducts: a shirt that ships, with stock. */
const SHIRT: SessionRequest = {
  product_id: 9,
  variation_id: 'var_s',
  customer: { email: 'ada@example.com' },
};
const ADDRESS = { name: 'Ada Obi', line1: '1 Marina', city: 'Lagos', country: 'NG' };

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => new Error('expected an error'),
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw err;
  return { code: err.code, http: err.httpStatus, param: err.param, message: err.message };
}

describe('physical products are sold once: no installments, no subscription, no trial', () => {
  it.each<[string, Partial<SessionRequest>, string]>([
    ['installments', { installments: { count: 2, interval: 'monthly' } }, 'installments'],
    ['a subscription', { subscription_frequency_key: 'monthly' }, 'subscription_frequency_key'],
    ['a trial', { subscription_frequency_key: 'monthly', trial_days: 14 }, 'subscription_frequency_key'],
  ])('%s → 422 PHYSICAL_GOODS_NOT_RECURRING, nothing saved, announced or held', async (_, over, param) => {
    const { service, sessions, stock, products } = setup();
    stock.levels.set(9, 5);
    products.products.get(9)!.installments_allowed = true; // the catalogue flag does not make it sellable in parts
    expect(await refusal(service.create(1000, 'sandbox', { ...SHIRT, ...over }))).toEqual({
      code: 'PHYSICAL_GOODS_NOT_RECURRING',
      http: 422,
      param,
      message: 'Physical products cannot be sold in installments or by subscription',
    });
    expect([sessions.docs.size, sessions.events.length, stock.holds.size, stock.levels.get(9)]).toEqual([0, 0, 0, 5]);
  });

  it('a seeded physical product without shipping is refused too, whatever its installments flag', async () => {
    const { service, sessions, products } = setup();
    products.products.set(10, { ...products.products.get(8)!, name: 'Demo radio', shipping: null });
    const request = { product_id: 10, amount: 250_000, currency: 'NGN', customer: SHIRT.customer };
    expect(
      await refusal(service.create(1000, 'sandbox', { ...request, installments: { count: 2, interval: 'monthly' } })),
    ).toMatchObject({ code: 'PHYSICAL_GOODS_NOT_RECURRING', param: 'installments' });
    expect(await refusal(service.create(1000, 'sandbox', { ...request, trial_days: 7 }))).toMatchObject({
      code: 'PHYSICAL_GOODS_NOT_RECURRING',
      param: 'trial_days',
    });
    expect(sessions.docs.size).toBe(0);
  });

  it('a digital product still sells by subscription and a trial', async () => {
    const { service } = setup();
    const digital = { product_id: 7, amount: 500_000, currency: 'NGN', customer: SHIRT.customer };
    const { session } = await service.create(1000, 'sandbox', {
      ...digital,
      subscription_frequency_key: 'monthly',
      trial_days: 14,
    });
    expect(session).toMatchObject({ payment_type: 'subscription', trial_days: 14, goods: null, stock_state: null });
  });

  it('a session stored with the combination before it was refused is not paid: no units held, no charge, no card', async () => {
    const { service, sessions, stock, cards, methods, goods, advance } = setup();
    stock.levels.set(9, 5);
    const { session } = await service.create(1000, 'sandbox', SHIRT);
    sessions.docs.set(session.session_id, {
      ...sessions.docs.get(session.session_id)!,
      payment_type: 'subscription',
      subscription_frequency_key: 'monthly',
      trial_days: 14,
    });
    expect(await refusal(service.pay(session.session_id, VISA, ADDRESS))).toMatchObject({
      code: 'PHYSICAL_GOODS_NOT_RECURRING',
      http: 422,
    });
    expect([stock.holds.size, cards.payments.length, methods.docs.size, sessions.events.length]).toEqual([0, 0, 0, 0]);
    advance(31 * 60_000);
    await service.sweepExpired();
    await goods.settleStock();
    expect([stock.levels.get(9), stock.holds.size]).toEqual([5, 0]);
  });
});
