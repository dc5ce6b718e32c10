import { Schema, type Connection, type Model } from 'mongoose';
import { FERRETDB_SQL_PUSHDOWN, isDuplicateKeyError } from '@ppay/runtime';
import type { FinalStatus, InboxRecord } from './processor-event';
import type { ProcessorEventRepository } from './processor-events';

/** The inbox of processor events (`processor_events`, `_id` = processor:event_id: one document per event). */
interface ProcessorEventDocument extends Omit<InboxRecord, 'id'> {
  _id: string;
}

const processorEventSchema = new Schema<ProcessorEventDocument>(
  {
    _id: { type: String, required: true },
    // The event in our terms, one shape per kind (`ProcessorEvent`), written once and never queried into.
    event: { type: Schema.Types.Mixed, required: true },
    status: { type: String, required: true },
    note: { type: String, default: null },
    attempts: { type: Number, default: 0 },
    received_at: { type: Date, required: true },
    next_attempt_at: { type: Date, required: true },
    finished_at: { type: Date, default: null },
  },
  { versionKey: false, collection: 'processor_events' },
);
// The sweep: received events by when they are due.
processorEventSchema.index({ status: 1, next_attempt_at: 1 });

export type ProcessorEventModel = Model<ProcessorEventDocument>;

export function processorEventModel(conn: Connection): ProcessorEventModel {
  return conn.model<ProcessorEventDocument>('ProcessorEvent', processorEventSchema);
}

function toRecord({ _id, ...rest }: ProcessorEventDocument): InboxRecord {
  return { id: _id, ...rest };
}

export class MongoProcessorEventRepository implements ProcessorEventRepository {
  constructor(readonly model: ProcessorEventModel) {}

  async insert({ id, ...rest }: InboxRecord): Promise<boolean> {
    try {
      await this.model.create({ _id: id, ...rest });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async due(now: Date, limit: number): Promise<InboxRecord[]> {
    const docs = await this.model
      .find({ status: 'received', next_attempt_at: { $lte: now } })
      .sort({ next_attempt_at: 1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN) // the sweep's read: in SQL over its index, not of every event kept
      .lean<ProcessorEventDocument[]>();
    return docs.map(toRecord);
  }

  async finish(id: string, status: FinalStatus, note: string | null, now: Date): Promise<void> {
    await this.model.updateOne({ _id: id, status: 'received' }, { $set: { status, note, finished_at: now } });
  }

  async postpone(id: string, until: Date): Promise<void> {
    await this.model.updateOne(
      { _id: id, status: 'received' },
      { $set: { next_attempt_at: until }, $inc: { attempts: 1 } },
    );
  }
}
