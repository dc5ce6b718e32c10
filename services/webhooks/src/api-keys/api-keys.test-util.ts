import type { OutboxEntry } from '@ppay/kernel';
import type { ApiKeyRepository } from '../ports';
import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStatus } from './api-key';

/** API keys in memory, with the conditional update of the Mongo repository; `events` are the outbox entries. */
export class MemoryApiKeyRepository implements ApiKeyRepository {
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly events: OutboxEntry[] = [];

  async insert(record: ApiKeyRecord, event: OutboxEntry): Promise<void> {
    this.keys.set(record.id, structuredClone(record));
    this.events.push(event);
  }
  async listUnrevoked(merchantId: number): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => k.merchant_id === merchantId && k.status !== 'revoked')
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
      .map((k) => structuredClone(k));
  }
  async listRevoked(merchantId: number, limit: number): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => k.merchant_id === merchantId && k.status === 'revoked')
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
      .slice(0, limit)
      .map((k) => structuredClone(k));
  }
  async findForMerchant(merchantId: number, keyId: string): Promise<ApiKeyRecord | null> {
    const k = this.keys.get(keyId);
    return k && k.merchant_id === merchantId ? structuredClone(k) : null;
  }
  async findById(keyId: string): Promise<ApiKeyRecord | null> {
    const k = this.keys.get(keyId);
    return k ? structuredClone(k) : null;
  }
  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const k = [...this.keys.values()].find((r) => r.key_hash === keyHash);
    return k ? structuredClone(k) : null;
  }
  async update(
    merchantId: number,
    keyId: string,
    fromStatuses: ApiKeyStatus[],
    changes: ApiKeyChanges,
    event: OutboxEntry,
    secretVersion?: number,
  ): Promise<ApiKeyRecord | null> {
    const k = this.keys.get(keyId);
    if (!k || k.merchant_id !== merchantId || !fromStatuses.includes(k.status)) return null;
    if (secretVersion !== undefined && k.webhook_secret_version !== secretVersion) return null;
    Object.assign(k, structuredClone(changes));
    this.events.push(event);
    return structuredClone(k);
  }
}
