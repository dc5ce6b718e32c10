import { Schema, type Connection, type Model } from 'mongoose';
import { PlatformError, type OutboxEntry } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN, isDuplicateKeyError, outboxEntrySchema } from '@ppay/runtime';
import type { ApiKeyRepository } from '../ports';
import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStatus } from './api-key';

interface ApiKeyDocument extends Omit<ApiKeyRecord, 'id'> {
  _id: string;
  outbox: OutboxEntry[];
}

const encryptedSecretSchema = new Schema({ key_id: String, iv: String, tag: String, data: String }, { _id: false });

const apiKeySchema = new Schema<ApiKeyDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    name: { type: String, required: true },
    key_hash: { type: String, required: true, unique: true },
    masked_key: { type: String, required: true },
    status: { type: String, required: true },
    webhook_url: { type: String, default: null },
    webhook_secret: { type: encryptedSecretSchema, required: true },
    webhook_secret_hint: { type: String, required: true },
    previous_webhook_secret: {
      type: new Schema({ secret: encryptedSecretSchema, rotated_at: Date }, { _id: false }),
      default: null,
    },
    webhook_secret_version: { type: Number },
    api_version: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
    outbox: { type: [outboxEntrySchema], default: [] },
  },
  { versionKey: false, collection: 'api_keys' },
);
// A merchant's keys by status (the key list, the quota, the webhook receivers): never a read of other
// merchants' keys, nor of all of its own revoked ones.
apiKeySchema.index({ merchant_id: 1, status: 1, created_at: -1 });

/** Safety bound on one status's read; the quota keeps unrevoked keys far below it. */
const MAX_UNREVOKED_READ = 200;

function toRecord(doc: ApiKeyDocument | null): ApiKeyRecord | null {
  if (!doc) return null;
  const { _id, outbox: _outbox, ...rest } = doc;
  // Keys written before rotation overlap existed have no such field.
  return {
    id: _id,
    ...rest,
    previous_webhook_secret: rest.previous_webhook_secret ?? null,
    webhook_secret_version: rest.webhook_secret_version ?? 0,
  };
}

export type ApiKeyModel = Model<ApiKeyDocument>;

export function apiKeyModel(conn: Connection): ApiKeyModel {
  return conn.model<ApiKeyDocument>('ApiKey', apiKeySchema);
}

export class MongoApiKeyRepository implements ApiKeyRepository {
  /** `afterWrite` is told which document gained outbox events (the relay's fast path). */
  constructor(
    readonly model: ApiKeyModel,
    private readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  async insert(record: ApiKeyRecord, event: OutboxEntry): Promise<void> {
    const { id, ...rest } = record;
    try {
      await this.model.create({ _id: id, ...rest, outbox: [event] });
      this.afterWrite(id);
    } catch (err) {
      // A 190-bit random key colliding is not a partner's mistake; surface it as a retryable conflict.
      if (isDuplicateKeyError(err)) throw new PlatformError('CONFLICT', undefined, { cause: err });
      throw err;
    }
  }

  async listUnrevoked(merchantId: number): Promise<ApiKeyRecord[]> {
    const [active, disabled] = await Promise.all([
      this.byStatus(merchantId, 'active', MAX_UNREVOKED_READ),
      this.byStatus(merchantId, 'disabled', MAX_UNREVOKED_READ),
    ]);
    return [...active, ...disabled].sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  }

  listRevoked(merchantId: number, limit: number): Promise<ApiKeyRecord[]> {
    return this.byStatus(merchantId, 'revoked', limit);
  }

  /** Newest first; equality and a sort on the index's fields, so in SQL on the local FerretDB too. */
  private async byStatus(merchantId: number, status: ApiKeyStatus, limit: number): Promise<ApiKeyRecord[]> {
    const docs = await this.model
      .find({ merchant_id: merchantId, status }, { outbox: 0 })
      .sort({ created_at: -1 })
      .limit(limit)
      .comment(FERRETDB_SQL_PUSHDOWN)
      .lean()
      .exec();
    return docs.map((d) => toRecord(d as ApiKeyDocument)!);
  }

  async findForMerchant(merchantId: number, keyId: string): Promise<ApiKeyRecord | null> {
    return toRecord(
      (await this.model
        .findOne({ _id: keyId, merchant_id: merchantId }, { outbox: 0 })
        .lean()
        .exec()) as ApiKeyDocument | null,
    );
  }

  async findById(keyId: string): Promise<ApiKeyRecord | null> {
    return toRecord((await this.model.findOne({ _id: keyId }, { outbox: 0 }).lean().exec()) as ApiKeyDocument | null);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return toRecord(
      (await this.model.findOne({ key_hash: keyHash }, { outbox: 0 }).lean().exec()) as ApiKeyDocument | null,
    );
  }

  async update(
    merchantId: number,
    keyId: string,
    fromStatuses: ApiKeyStatus[],
    changes: ApiKeyChanges,
    event: OutboxEntry,
    secretVersion?: number,
  ): Promise<ApiKeyRecord | null> {
    // Version 0 is a key stored before versions existed: the field is absent.
    const version =
      secretVersion === undefined
        ? {}
        : { webhook_secret_version: secretVersion === 0 ? { $not: { $gt: 0 } } : secretVersion };
    const doc = await this.model
      .findOneAndUpdate(
        { _id: keyId, merchant_id: merchantId, status: { $in: fromStatuses }, ...version },
        { $set: changes, $push: { outbox: event } },
        // No projection: FerretDB's findAndModify does not support one; toRecord drops the outbox.
        { new: true },
      )
      .lean()
      .exec();
    if (doc) this.afterWrite(keyId);
    return toRecord(doc as ApiKeyDocument | null);
  }
}
