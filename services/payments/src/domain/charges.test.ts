import { PlatformError } from '@ppay/kernel';
import { ChargeService, type ChargeRequest } from './charges';
import { DEFAULT_FEE_SCHEDULE } from './fees';
import { FakeFx, FakeMerchants, FakeProcessors, FakeSplits, MemoryCharges } from './memory-ports.test-util';
import { OutcomeService } from './outcomes';

const NGN: ChargeRequest = {
  amount: 500_000,
  currency: 'NGN',
  total_amount: 500_000,
  total_currency: 'NGN',
  customer: { email: 'c@example.com' },
};

function setup() {
  const merchants = new FakeMerchants();
  merchants.add({ merchant_id: 1000 });
  merchants.add({ merchant_id: 2000, country: 'US', baseline_currency: 'USD', is_marketplace_operator: true });
  const charges = new MemoryCharges();
  const processors = new FakeProcessors();
  const splits = new FakeSplits();
  const fx = new FakeFx();
  let clock = Date.parse('2026-11-01T10:00:00Z');
  const service = new ChargeService(
    { merchants, fx, splits, processors, charges },
    { feeSchedule: DEFAULT_FEE_SCHEDULE, tolerance: '0.01', referenceWaitMs: 200 },
    () => new Date(clock),
    async (ms) => {
      clock += ms;
    },
  );
  return { service, charges, processors, splits, fx, merchants };
}

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    const e = err as PlatformError;
    return [e.code, e.message, e.param];
  }
  throw new Error('expected an error');
};

describe('ChargeService (spec 4.1, 7.1) with in-memory dependencies', () => {
  it('creates a pending naira charge with the fee schedule, routes it and records its processor data', async () => {
    const { service, charges, processors } = setup();
    const out = await service.create(1000, 'sandbox', { ...NGN, reference: 'order-1', metadata: { cart: 9 } });
    if (out.kind !== 'charge') throw new Error('expected a charge');
    expect(out.replayed).toBe(false);
    expect(out.charge).toMatchObject({
      status: 'pending',
      payment_gateway: 'naira_gateway',
      amount: { amount: 500_000, currency: 'NGN' },
      total: { amount: 500_000, currency: 'NGN' },
      fee_details: { base_amount: 500_000, transaction_fee: 17_500, total_amount: 500_000, customer_pays_fees: false },
      processor_reference: `ref_${out.charge.charge_id}`,
      client_secret: null,
      metadata: { cart: 9 },
    });
    expect(processors.intents).toEqual([expect.objectContaining({ amount: { amount: 500_000, currency: 'NGN' } })]);
    expect(charges.docs.size).toBe(1);
  });

  it('reports the spec 7.1 errors in the order a partner would fix them', async () => {
    const { service } = setup();
    const create = (r: ChargeRequest) => errorOf(service.create(1000, 'sandbox', r));
    expect(await create({})).toEqual(['AMOUNT_REQUIRED', 'amount is required', 'amount']);
    expect(await create({ amount: 1 })).toEqual(['MISSING_REQUIRED_FIELDS', 'Missing required fields', 'currency']);
    expect(await create({ ...NGN, total_amount: undefined })).toEqual([
      'TOTAL_REQUIRED',
      'Missing total_amount / total_currency',
      'total_amount',
    ]);
    expect(await create({ ...NGN, amount: -5, total_amount: -5 })).toEqual([
      'VALIDATION_FAILED',
      "amount must be a positive integer in the currency's smallest unit",
      'amount',
    ]);
    expect(await create({ ...NGN, converted_total_amount: 1 })).toEqual([
      'CONVERTED_PAIR_INCOMPLETE',
      'Both converted_total_amount and converted_total_currency must be provided together',
      'converted_total_currency',
    ]);
    expect(await create({ ...NGN, amount: 499_999 })).toEqual(['AMOUNT_MISMATCH', 'Amount mismatch', 'amount']);
    expect((await create({ ...NGN, currency: 'JPY', total_currency: 'JPY' }))[0]).toBe('UNSUPPORTED_CURRENCY');
  });

  it('checks a converted amount against its own conversion within 1%, inclusive', async () => {
    const { service, fx } = setup();
    // 10.00 USD → 15,000.00 NGN at 1500.
    const converted = { amount: 1_500_000, currency: 'NGN', total_amount: 1_000, total_currency: 'USD' };
    const ok = await service.create(1000, 'sandbox', { ...converted, amount: 1_515_000, customer: NGN.customer });
    expect(ok.kind === 'charge' && ok.charge.conversion).toMatchObject({
      original: { amount: 1_000, currency: 'USD' },
      converted: { amount: 1_500_000, currency: 'NGN' },
      rate_decimal: '1500',
    });
    expect(
      await errorOf(service.create(1000, 'sandbox', { ...converted, amount: 1_515_001, customer: NGN.customer })),
    ).toEqual(['AMOUNT_MISMATCH', 'Amount mismatch', 'amount']);
    expect(fx.calls).toBe(2);
  });

  it('a preview stores nothing, calls no processor and shows the 4.1 breakdown', async () => {
    const { service, charges, processors } = setup();
    const out = await service.create(1000, 'sandbox', {
      ...NGN,
      preview: true,
      reference: 'r',
      customer: { email: 'x@y.z', country: 'Ghana' },
    });
    expect(out).toEqual({
      kind: 'preview',
      preview: {
        preview: true,
        payment_gateway: 'naira_gateway',
        mode: 'sandbox',
        is_international: true,
        business_country: 'NG',
        customer_country: 'GH',
        customer: {
          currency: 'NGN',
          base_amount: 500_000,
          transaction_fee: 17_500,
          total_charged: 500_000,
          pays_fees: false,
        },
        business: { currency: 'NGN', priced_amount: 500_000 },
        conversion: null,
      },
    });
    expect([charges.docs.size, processors.intents.length]).toEqual([0, 0]);
  });

  it('a repeated reference returns the first charge; a processor outage is a 5xx, not a charge', async () => {
    const { service, processors } = setup();
    const first = await service.create(1000, 'sandbox', { ...NGN, reference: 'order-7' });
    const again = await service.create(1000, 'sandbox', { ...NGN, reference: 'order-7' });
    expect(again.kind === 'charge' && again.replayed).toBe(true);
    expect(again.kind === 'charge' && again.charge.charge_id).toBe(first.kind === 'charge' && first.charge.charge_id);
    expect(processors.intents).toHaveLength(1);
    processors.failWith = new PlatformError('SERVICE_UNAVAILABLE');
    expect((await errorOf(service.create(1000, 'sandbox', { ...NGN, reference: 'order-8' })))[0]).toBe(
      'SERVICE_UNAVAILABLE',
    );
  });

  it('a sub-merchant must be active under the operator; an outage of marketplace stays a 5xx', async () => {
    const { service, splits } = setup();
    const usd = { amount: 1_000, currency: 'USD', total_amount: 1_000, total_currency: 'USD', customer: NGN.customer };
    splits.set(2000, 3000, { active: true, commission_rate: '0.0800', commission_source: 'merchant' });
    splits.set(2000, 3001, { active: false, commission_rate: '0.0800', commission_source: 'merchant' });
    splits.set(2000, 3002, new PlatformError('SERVICE_UNAVAILABLE'));
    const ok = await service.create(2000, 'sandbox', { ...usd, sub_merchant_id: 3000 });
    expect(ok.kind === 'charge' && ok.charge.split).toEqual({
      commission_rate: '0.0800',
      commission_source: 'merchant',
    });
    expect(ok.kind === 'charge' && ok.charge.client_secret).toMatch(/^secret_/);
    expect((await errorOf(service.create(2000, 'sandbox', { ...usd, sub_merchant_id: 3001 })))[0]).toBe(
      'SUB_MERCHANT_NOT_ACTIVE',
    );
    expect((await errorOf(service.create(2000, 'sandbox', { ...usd, sub_merchant_id: 9999 })))[0]).toBe(
      'SUB_MERCHANT_NOT_ACTIVE',
    );
    expect((await errorOf(service.create(2000, 'sandbox', { ...usd, sub_merchant_id: 3002 })))[0]).toBe(
      'SERVICE_UNAVAILABLE',
    );
  });

  it('live keys never reach a sandbox processor: no live processor means 422 before anything is stored', async () => {
    const { service, charges } = setup();
    expect((await errorOf(service.create(1000, 'live', NGN)))[0]).toBe('GATEWAY_NOT_CONFIGURED');
    expect(charges.docs.size).toBe(0);
  });

  it('outcomes: final states are final and each writes its event once', async () => {
    const { service, charges } = setup();
    const out = await service.create(1000, 'sandbox', NGN);
    if (out.kind !== 'charge') throw new Error('expected a charge');
    const outcomes = new OutcomeService(charges);
    const done = await outcomes.simulate(1000, 'sandbox', out.charge.charge_id, 'succeed');
    expect(done.status).toBe('succeeded');
    expect((await outcomes.simulate(1000, 'sandbox', out.charge.charge_id, 'succeed')).status).toBe('succeeded');
    expect((await errorOf(outcomes.simulate(1000, 'sandbox', out.charge.charge_id, 'fail')))[0]).toBe('CONFLICT');
    expect((await errorOf(outcomes.simulate(1000, 'live', out.charge.charge_id, 'fail')))[0]).toBe('PERMISSION_DENIED');
    expect(charges.events.map((e) => e.subject)).toEqual(['payments.payment.succeeded']);
    expect(charges.events[0]!.data).toMatchObject({
      charge_id: out.charge.charge_id,
      amount: { amount: 500_000, currency: 'NGN' },
      breakdown: { merchant_net: { amount: 482_500, currency: 'NGN' } },
      session_id: null,
    });
  });
});
