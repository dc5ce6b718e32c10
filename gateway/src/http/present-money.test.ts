import { Type } from '@sinclair/typebox';
import { Nullable } from '../schemas/common';
import { CurrencyOf, MajorUnitsOf, MinorUnitsOf } from '../schemas/money';
import { presentMoney, responseSchemaFor } from './present-money';

const Refund = Type.Object({
  refund_id: Type.String(),
  amount: MinorUnitsOf('amount'),
  currency: CurrencyOf('amount'),
});

const Charge = Type.Object({
  charge_id: Type.String(),
  fee_details: Type.Object({
    base_amount: MinorUnitsOf('base'),
    transaction_fee: MinorUnitsOf('fee'),
    total_amount: MinorUnitsOf('total'),
    customer_pays_fees: Type.Boolean(),
  }),
  refunds: Type.Array(Refund),
  balance: Nullable(Type.Object({ amount: MajorUnitsOf('balance'), currency: CurrencyOf('balance') })),
});

describe('presentMoney', () => {
  it('reads each REST amount, currency and display value from the wire Money it names', () => {
    const wire = {
      charge_id: 'ch_1',
      fee_details: {
        base: { amount: 10_000, currency: 'NGN' },
        fee: { amount: 150, currency: 'NGN' },
        total: { amount: 10_150, currency: 'NGN' },
        customer_pays_fees: true,
      },
      refunds: [
        { refund_id: 're_1', amount: { amount: 500, currency: 'NGN' } },
        { refund_id: 're_2', amount: { amount: 7, currency: 'JPY' } },
      ],
      balance: { balance: { amount: 123_456, currency: 'KWD' } },
    };
    expect(presentMoney(Charge, wire)).toMatchObject({
      charge_id: 'ch_1',
      fee_details: { base_amount: 10_000, transaction_fee: 150, total_amount: 10_150, customer_pays_fees: true },
      refunds: [
        { refund_id: 're_1', amount: 500, currency: 'NGN' },
        { refund_id: 're_2', amount: 7, currency: 'JPY' },
      ],
      balance: { amount: 123.456, currency: 'KWD' },
    });
  });

  it('leaves a field as it is when its wire Money is absent, and null stays null', () => {
    const out = presentMoney(Charge, {
      charge_id: 'ch_2',
      fee_details: { customer_pays_fees: false },
      refunds: [],
      balance: null,
    });
    expect(out).toEqual({ charge_id: 'ch_2', fee_details: { customer_pays_fees: false }, refunds: [], balance: null });
  });

  it('returns a message without money fields untouched (the same object)', () => {
    const Plain = Type.Object({ id: Type.String(), nested: Type.Object({ n: Type.Integer() }) });
    const wire = { id: 'x', nested: { n: 1 } };
    expect(presentMoney(Plain, wire)).toBe(wire);
  });

  it('finds the success schema of a route by status code or class', () => {
    const responses = { 200: Refund, '4xx': Charge };
    expect(responseSchemaFor(responses, 200)).toBe(Refund);
    expect(responseSchemaFor(responses, 404)).toBe(Charge);
    expect(responseSchemaFor(responses, 500)).toBeUndefined();
    expect(responseSchemaFor(undefined, 200)).toBeUndefined();
  });
});
