import type { TSchema } from '@sinclair/typebox';
import { toMajorUnits, type Money } from '@ppay/kernel';
import { wireMoneySource, type WireMoneySource } from '../schemas/money';

type Present = (value: unknown) => unknown;

interface SchemaShape {
  properties?: Record<string, TSchema>;
  items?: TSchema;
  anyOf?: TSchema[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isMoney = (value: unknown): value is Money =>
  isRecord(value) && typeof value.amount === 'number' && typeof value.currency === 'string';

function read(wire: Record<string, unknown>, source: WireMoneySource): unknown {
  const value = wire[source.from];
  if (!isMoney(value)) return undefined;
  if (source.part === 'major') return toMajorUnits(value);
  return value[source.part];
}

/** Plans are compiled once per schema object; `null` means the schema has no money field to fill. */
const plans = new WeakMap<object, Present | null>();

function planFor(schema: TSchema): Present | null {
  const known = plans.get(schema);
  if (known !== undefined) return known;
  const plan = compile(schema as SchemaShape);
  plans.set(schema, plan);
  return plan;
}

function compile(schema: SchemaShape): Present | null {
  if (schema.properties) {
    const steps: [string, WireMoneySource | Present][] = [];
    for (const [key, property] of Object.entries(schema.properties)) {
      const source = wireMoneySource(property);
      const nested = source ? undefined : planFor(property);
      if (source) steps.push([key, source]);
      else if (nested) steps.push([key, nested]);
    }
    if (steps.length === 0) return null;
    return (value) => {
      if (!isRecord(value)) return value;
      const out: Record<string, unknown> = { ...value };
      for (const [key, step] of steps) {
        if (typeof step === 'function') {
          if (value[key] !== undefined) out[key] = step(value[key]);
        } else {
          const presented = read(value, step);
          if (presented !== undefined) out[key] = presented;
        }
      }
      return out;
    };
  }
  if (schema.items) {
    const item = planFor(schema.items);
    return item ? (value) => (Array.isArray(value) ? value.map(item) : value) : null;
  }
  if (schema.anyOf) {
    // Nullable(X) and unions of objects: each branch fills only the fields whose wire Money it finds.
    const branches = schema.anyOf.map(planFor).filter((p): p is Present => p !== null);
    if (branches.length === 0) return null;
    return (value) => branches.reduce((v, present) => present(v), value);
  }
  return null;
}

/**
 * The REST body of a wire message: every field declared with `MinorUnitsOf`, `CurrencyOf` or
 * `MajorUnitsOf` is read from the wire Money it names (left as it is when that Money is absent);
 * everything else passes as it is (the response
 * schema, as serialiser, drops what the REST shape does not declare). Schemas without money fields
 * cost one WeakMap lookup.
 */
export function presentMoney(schema: TSchema | undefined, value: unknown): unknown {
  if (!schema) return value;
  const plan = planFor(schema);
  return plan ? plan(value) : value;
}

/** A route's response schema for a status code (Fastify keys them `200`, `'200'` or `'2xx'`). */
export function responseSchemaFor(responses: unknown, statusCode: number): TSchema | undefined {
  if (!isRecord(responses)) return undefined;
  const schema = responses[statusCode] ?? responses[`${String(statusCode)[0]}xx`];
  return isRecord(schema) ? (schema as TSchema) : undefined;
}
