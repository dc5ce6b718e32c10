import { Schema, type Connection, type Model } from 'mongoose';
import type { Mode } from '@ppay/kernel';

/**
 * Which charge holds an Idempotency-Key or reference, looked up by `_id` alone. The charges' unique
 * indexes stay the authority; this is a lookup index for the create path, because the only query a
 * MongoDB-wire server such as FerretDB answers without reading the whole collection is `{_id: x}`,
 * and every create with a key looks one up. A pointer is written before its charge is inserted, so
 * a charge holding a key always has one (no pointer: no charge); a pointer that does not resolve (a
 * create that crashed or lost its race after writing it, a released reference) sends the lookup to
 * the charges' own indexes once, which then repair it.
 */
interface ChargeKeyDocument {
  _id: string;
  merchant_id: number;
  mode: Mode;
  charge_id: string;
}

const chargeKeySchema = new Schema<ChargeKeyDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    charge_id: { type: String, required: true },
  },
  { versionKey: false, collection: 'charge_keys' },
);

export type ChargeKeyModel = Model<ChargeKeyDocument>;

export function chargeKeyModel(conn: Connection): ChargeKeyModel {
  return conn.model<ChargeKeyDocument>('ChargeKey', chargeKeySchema);
}

export type KeyKind = 'key' | 'ref';

export function pointerId(merchantId: number, mode: Mode, kind: KeyKind, value: string): string {
  return `${merchantId}:${mode}:${kind}:${value}`;
}

/** The keys a charge holds, the Idempotency-Key first. */
export function keyPairs(c: { idempotency_key: string | null; reference: string | null }): [KeyKind, string][] {
  return [
    ...(c.idempotency_key ? [['key', c.idempotency_key] as [KeyKind, string]] : []),
    ...(c.reference ? [['ref', c.reference] as [KeyKind, string]] : []),
  ];
}

/** Points each key at the charge (upserts: a repeat, or a takeover after a failed charge, rewrites it). */
export async function pointTo(
  model: ChargeKeyModel,
  merchantId: number,
  mode: Mode,
  pairs: [KeyKind, string][],
  chargeId: string,
): Promise<void> {
  for (const [kind, value] of pairs) {
    await model
      .updateOne(
        { _id: pointerId(merchantId, mode, kind, value) },
        { $set: { merchant_id: merchantId, mode, charge_id: chargeId } },
        { upsert: true },
      )
      .exec();
  }
}
