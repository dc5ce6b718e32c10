import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKeyError } from '@ppay/runtime';
import type { RenewalRepository } from './ports';
import { renewalRecordId, startedAttempt, type RenewalAttempt, type RenewalRecord } from './renewal';

interface RenewalDocument extends RenewalRecord {
  /** `<subscription>:<period start ISO>`: one record per (subscription, period), by construction and by index. */
  _id: string;
}

const renewalSchema = new Schema<RenewalDocument>(
  {
    _id: { type: String, required: true },
    subscription_id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    period_index: { type: Number, required: true },
    period_start: { type: Date, required: true },
    period_end: { type: Date, required: true },
    attempts: { type: Schema.Types.Mixed, default: {} },
    status: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'renewals', minimize: false },
);
renewalSchema.index({ subscription_id: 1, period_start: 1 }, { unique: true });

export type RenewalModel = Model<RenewalDocument>;

export function renewalModel(conn: Connection): RenewalModel {
  return conn.model<RenewalDocument>('Renewal', renewalSchema);
}

export class MongoRenewalRepository implements RenewalRepository {
  constructor(readonly model: RenewalModel) {}

  async startAttempt(
    period: Omit<RenewalRecord, 'attempts' | 'status' | 'created_at'>,
    attempt: number,
    idempotencyKey: string,
    at: Date,
  ): Promise<void> {
    const _id = renewalRecordId(period.subscription_id, period.period_start);
    const started = startedAttempt(idempotencyKey, at);
    try {
      // The period's first attempt creates its record (one write).
      await this.model.create({ _id, ...period, attempts: { [attempt]: started }, status: 'pending', created_at: at });
      return;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    // A retry, or a repeat after a crash: add the attempt unless it is recorded (a repeat keeps the first start).
    await this.model
      .updateOne({ _id, [`attempts.${attempt}`]: { $exists: false } }, { $set: { [`attempts.${attempt}`]: started } })
      .exec();
  }

  async finishAttempt(
    subscriptionId: string,
    periodStart: Date,
    attempt: number,
    outcome: Pick<RenewalAttempt, 'charge_id' | 'status' | 'decline_code' | 'finished_at'>,
  ): Promise<void> {
    const _id = renewalRecordId(subscriptionId, periodStart);
    const key = `attempts.${attempt}`;
    // Attempts of one period are sequential (the next starts only after this one failed), so the period's
    // status is this attempt's outcome: paid once one succeeds, and nothing is attempted after that.
    await this.model
      .updateOne(
        { _id },
        {
          $set: {
            [`${key}.charge_id`]: outcome.charge_id,
            [`${key}.status`]: outcome.status,
            [`${key}.decline_code`]: outcome.decline_code,
            [`${key}.finished_at`]: outcome.finished_at,
            status: outcome.status === 'succeeded' ? 'paid' : 'failed',
          },
        },
      )
      .exec();
  }
}
