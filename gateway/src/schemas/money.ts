import { Type, type IntegerOptions, type NumberOptions, type StringOptions, type TSchema } from '@sinclair/typebox';

/**
 * Money travels between services in one shape, `common.v1.Money` (minor units + ISO 4217). The REST
 * shapes of the spec spell it several ways (flat `amount` + `currency`, `base_amount` beside a
 * sibling `currency`, major-unit numbers): each such REST field names, in its schema, the wire Money
 * it is read from, and `presentMoney` (http/present-money.ts) fills it in before serialisation. So a
 * money field is defined once here, once in the proto and once in the domain record.
 */
export const WIRE_MONEY = Symbol.for('ppay.wire-money');

export type MoneyPart = 'amount' | 'currency' | 'major';

/** Where a REST field comes from: `part` of the wire Money at property `from` of the same message. */
export interface WireMoneySource {
  from: string;
  part: MoneyPart;
}

type WithSource<T extends TSchema> = T & { [WIRE_MONEY]: WireMoneySource };

// Typed as the plain schema: the mark is for presentMoney at run time, and a type that carried the
// symbol could not be named in the declarations of the schema modules that export these fields.
const from = <T extends TSchema>(schema: T, source: WireMoneySource): T =>
  Object.assign(schema, { [WIRE_MONEY]: source });

/** Minor units (integer) of the wire Money `field`. */
export const MinorUnitsOf = (field: string, options: IntegerOptions = {}) =>
  from(Type.Integer(options), { from: field, part: 'amount' });

/** The ISO 4217 code of the wire Money `field`. */
export const CurrencyOf = (field: string, options: StringOptions = {}) =>
  from(Type.String(options), { from: field, part: 'currency' });

/** Whole currency units (a display number, e.g. 123.45) of the wire Money `field`, where the spec asks for them. */
export const MajorUnitsOf = (field: string, options: NumberOptions = {}) =>
  from(Type.Number(options), { from: field, part: 'major' });

export function wireMoneySource(schema: TSchema): WireMoneySource | undefined {
  return (schema as Partial<WithSource<TSchema>>)[WIRE_MONEY];
}
