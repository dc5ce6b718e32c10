import { PlatformError } from '@ppay/kernel';
import { NGN_CHARGE as NGN, testFees } from './charge.test-util';
import { rejectionOf } from '../errors.test-util';
import { ChargeService, type ChargeRequest } from './charges';
import { DEFAULT_FEE_SCHEDULE } from './fees';
import { FakeFx, FakeMerchants, FakeSplits, MemoryCharges } from '../memory-ports.test-util';
import { FakeProcessors } from '../processors/processors.test-util';
import { OutcomeService } from './outcomes';

/** The service over in-memory ports; a fake clock unless `realClock` (deadlines are real timers). */
function setup(options: { realClock?: boolean } = {}) {
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
    { feeSchedule: DEFAULT_FEE_SCHEDULE, tolerance: '0.01', inFlightWaitMs: 200, staleAfterMs: 30_000 },
    options.realClock ? () => new Date() : () => new Date(clock),
    options.realClock
      ? (ms) => new Promise((r) => setTimeout(r, ms))
      : async (ms) => {
          clock += ms;
        },
  );
  return { service, charges, processors, splits, fx, merchants, advance: (ms: number) => (clock += ms) };
}

const errorOf = async (p: Promise<unknown>) => {
  const e = await rejectionOf(p);
  return [e.code, e.message, e.param];
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
      fee_details: testFees('NGN', 500_000, 17_500),
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
          base: { amount: 500_000, currency: 'NGN' },
          fee: { amount: 17_500, currency: 'NGN' },
          total: { amount: 500_000, currency: 'NGN' },
          pays_fees: false,
        },
        business: { price: { amount: 500_000, currency: 'NGN' } },
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

  it('the split is resolved in the mode of the charge: a sandbox relationship never serves a live charge', async () => {
    const { service, splits, charges } = setup();
    const usd = { amount: 1_000, currency: 'USD', total_amount: 1_000, total_currency: 'USD', customer: NGN.customer };
    splits.set(2000, 3000, { active: true, commission_rate: '0.0800', commission_source: 'merchant' }, 'sandbox');
    // Refused before any processor is chosen (live has none here): the live lookup found no relationship.
    expect((await errorOf(service.create(2000, 'live', { ...usd, sub_merchant_id: 3000 })))[0]).toBe(
      'SUB_MERCHANT_NOT_ACTIVE',
    );
    expect(charges.docs.size).toBe(0);
    splits.set(2000, 3000, { active: false, commission_rate: '0.0800', commission_source: 'merchant' }, 'live');
    expect((await service.create(2000, 'sandbox', { ...usd, sub_merchant_id: 3000 })).kind).toBe('charge');
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

  describe('idempotency: a key or reference binds one charge, whatever happened to the first request', () => {
    it('refuses the same Idempotency-Key or reference with different parameters', async () => {
      const { service } = setup();
      await service.create(1000, 'sandbox', { ...NGN, reference: 'ord-1' }, { idempotencyKey: 'k-1' });
      const other = { ...NGN, amount: 600_000, total_amount: 600_000 };
      expect(await errorOf(service.create(1000, 'sandbox', other, { idempotencyKey: 'k-1' }))).toEqual([
        'IDEMPOTENCY_KEY_REUSED',
        'Idempotency-Key was already used with a different request',
        'Idempotency-Key',
      ]);
      expect(await errorOf(service.create(1000, 'sandbox', { ...other, reference: 'ord-1' }))).toEqual([
        'REFERENCE_REUSED',
        'reference was already used for a charge with different parameters',
        'reference',
      ]);
      // The same parameters are a replay; the preview flag is not a parameter.
      const again = await service.create(1000, 'sandbox', { ...NGN, reference: 'ord-1' });
      expect(again.kind === 'charge' && again.replayed).toBe(true);
    });

    it('a charge whose processor was down is initialised again in place by the retry', async () => {
      const { service, charges, processors } = setup();
      processors.failWith = new PlatformError('SERVICE_UNAVAILABLE');
      expect((await errorOf(service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-2' })))[0]).toBe(
        'SERVICE_UNAVAILABLE',
      );
      const [failed] = [...charges.docs.values()];
      expect(failed).toMatchObject({ status: 'failed', failure_reason: 'processor_unavailable' });
      processors.failWith = undefined;
      const retried = await service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-2' });
      expect(retried.kind === 'charge' && retried.charge).toMatchObject({
        charge_id: failed!.charge_id,
        status: 'pending',
        attempts: 2,
      });
      expect(charges.docs.size).toBe(1);
      expect(processors.intents.map((i) => i.charge_id)).toEqual([failed!.charge_id, failed!.charge_id]);
    });

    it('a processor slower than the deadline is an unknown outcome; its late answer lands and the retry gets it', async () => {
      const { service, charges, processors } = setup({ realClock: true });
      let answer!: () => void;
      processors.gate = new Promise<void>((r) => (answer = r));
      const deadline = new Date(Date.now() + 300);
      expect(await errorOf(service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-3', deadline }))).toEqual([
        'UPSTREAM_TIMEOUT',
        'The payment processor has not answered yet',
        undefined,
      ]);
      const [unknown] = [...charges.docs.values()];
      expect(unknown!.status).toBe('initializing');
      answer();
      await new Promise((r) => setTimeout(r, 20));
      expect(charges.docs.get(unknown!.charge_id)!.status).toBe('pending');
      const retry = await service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-3' });
      expect(retry.kind === 'charge' && [retry.charge.charge_id, retry.replayed]).toEqual([unknown!.charge_id, true]);
      expect(charges.docs.size).toBe(1);
    });

    it('a retry while an unknown outcome is still initialising waits, then reports it in flight', async () => {
      const { service, processors } = setup({ realClock: true });
      let answer!: () => void;
      processors.gate = new Promise<void>((r) => (answer = r));
      const deadline = new Date(Date.now() + 300);
      expect((await errorOf(service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-4', deadline })))[0]).toBe(
        'UPSTREAM_TIMEOUT',
      );
      expect((await errorOf(service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-4' })))[0]).toBe(
        'IDEMPOTENCY_IN_FLIGHT',
      );
      answer();
      await new Promise((r) => setTimeout(r, 20));
      const retry = await service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-4' });
      expect(retry.kind === 'charge' && [retry.charge.status, retry.replayed]).toEqual(['pending', true]);
    });

    it('stores a new charge once, with the processor’s answer: one write, nothing before the processor is asked', async () => {
      const { service, charges, processors } = setup();
      let answer!: () => void;
      processors.gate = new Promise<void>((r) => (answer = r));
      const writes: string[] = [];
      const insert = charges.insert.bind(charges);
      charges.insert = async (c) => (writes.push(`insert ${c.status}`), insert(c));
      charges.markInitialised = async () => {
        throw new Error('a new charge is never updated after its insert');
      };
      const made = service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-6' });
      await new Promise((r) => setImmediate(r));
      expect([processors.intents.length, charges.docs.size, writes]).toEqual([1, 0, []]);
      answer();
      const outcome = await made;
      expect(outcome.kind === 'charge' && outcome.charge.status).toBe('pending');
      expect(writes).toEqual(['insert pending']);
      expect([...charges.docs.values()][0]).toMatchObject({
        status: 'pending',
        processor_reference: `ref_${processors.intents[0]!.charge_id}`,
      });
    });

    it('a crash while the processor was asked stores nothing: the retry makes the charge, the unused initialisation stays unseen', async () => {
      const { service, charges, processors } = setup();
      processors.gate = new Promise<void>(() => undefined); // the process "died": no answer ever
      void service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-5' }).catch(() => undefined);
      await new Promise((r) => setImmediate(r));
      expect([processors.intents.length, charges.docs.size]).toEqual([1, 0]);
      processors.gate = undefined;
      const retry = await service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-5' });
      expect(retry.kind === 'charge' && [retry.charge.status, retry.replayed]).toEqual(['pending', false]);
      expect(charges.docs.size).toBe(1);
      // The processor was asked twice, for two ids; only the stored one was ever answered to anyone.
      const [unused, stored] = processors.intents.map((i) => i.charge_id);
      expect([...charges.docs.keys()]).toEqual([stored]);
      expect(unused).not.toBe(stored);
    });

    it('two requests with one key at once answer the one charge stored', async () => {
      const { service, charges, processors } = setup();
      let answer!: () => void;
      processors.gate = new Promise<void>((r) => (answer = r));
      const first = service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-7' });
      const second = service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-7' });
      await new Promise((r) => setImmediate(r));
      answer();
      const ids = (await Promise.all([first, second])).map((o) => (o.kind === 'charge' ? o.charge.charge_id : null));
      expect(ids[0]).toBe(ids[1]);
      expect(charges.docs.size).toBe(1);
      expect(processors.intents).toHaveLength(2);
    });

    it('a processor that never answers: unknown outcome, stored initializing, abandoned by the sweep, then retried in place', async () => {
      const { service, charges, processors } = setup({ realClock: true });
      processors.gate = new Promise<void>(() => undefined);
      const deadline = new Date(Date.now() + 300);
      expect((await errorOf(service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-8', deadline })))[0]).toBe(
        'UPSTREAM_TIMEOUT',
      );
      processors.gate = undefined;
      const [stored] = [...charges.docs.values()];
      stored!.updated_at = new Date(Date.now() - 31_000); // 30 s without an answer
      expect(await service.abandonStale()).toBe(1);
      expect(charges.docs.get(stored!.charge_id)).toMatchObject({ status: 'failed', failure_reason: 'abandoned' });
      const retry = await service.create(1000, 'sandbox', NGN, { idempotencyKey: 'k-8' });
      expect(retry.kind === 'charge' && retry.charge).toMatchObject({
        charge_id: stored!.charge_id,
        status: 'pending',
      });
    });

    it('after a decline, the same reference makes a new charge, while the same Idempotency-Key answers the decline', async () => {
      const { service, charges } = setup();
      const outcomes = new OutcomeService(charges);
      const first = await service.create(1000, 'sandbox', { ...NGN, reference: 'ord-9' }, { idempotencyKey: 'k-9' });
      if (first.kind !== 'charge') throw new Error('expected a charge');
      await outcomes.simulate(1000, 'sandbox', first.charge.charge_id, 'fail');
      const sameKey = await service.create(1000, 'sandbox', { ...NGN, reference: 'ord-9' }, { idempotencyKey: 'k-9' });
      expect(sameKey.kind === 'charge' && [sameKey.charge.charge_id, sameKey.charge.status]).toEqual([
        first.charge.charge_id,
        'failed',
      ]);
      const newAttempt = await service.create(1000, 'sandbox', { ...NGN, reference: 'ord-9' });
      expect(newAttempt.kind === 'charge' && newAttempt.charge.charge_id).not.toBe(first.charge.charge_id);
      expect(newAttempt.kind === 'charge' && newAttempt.charge.status).toBe('pending');
      expect(charges.docs.size).toBe(2);
    });
  });
});
