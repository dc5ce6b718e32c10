import { randomBytes } from 'node:crypto';
import { SecretBox } from '@ppay/kernel';
import type { ApiKeyRecord } from '../api-keys/api-key';
import type { ApiKeyRepository } from '../ports';
import { RepositoryDeliveryKeys } from './delivery-keys';

const box = new SecretBox(randomBytes(32), 'k1');

function key(over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'key_1',
    merchant_id: 5,
    mode: 'sandbox',
    name: 'default',
    key_hash: 'h',
    masked_key: 'pk_sandbox_…abcd',
    status: 'active',
    webhook_url: 'https://example.com/hooks',
    webhook_secret: box.seal('whsec_one'),
    webhook_secret_hint: 'one',
    previous_webhook_secret: null,
    webhook_secret_version: 1,
    api_version: '2026-03-27',
    created_at: new Date(),
    updated_at: new Date(),
    revoked_at: null,
    ...over,
  };
}

/** A repository holding one merchant's keys, counting the reads. */
function repo(keys: ApiKeyRecord[]) {
  const calls = { list: 0, byId: 0 };
  const r = {
    listUnrevoked: async (merchantId: number) => (calls.list++, keys.filter((k) => k.merchant_id === merchantId)),
    findById: async (id: string) => (calls.byId++, keys.find((k) => k.id === id) ?? null),
  } as unknown as ApiKeyRepository;
  return { r, calls };
}

describe('RepositoryDeliveryKeys', () => {
  it('reads a merchant’s receivers once per TTL, opening secrets in memory', async () => {
    const { r, calls } = repo([
      key(),
      key({ id: 'key_live', mode: 'live' }),
      key({ id: 'key_off', status: 'disabled' }),
    ]);
    const keys = new RepositoryDeliveryKeys(r, box, 60_000);
    const [a, b] = await Promise.all([keys.receivers(5, 'sandbox'), keys.receivers(5, 'sandbox')]);
    expect(a.map((k) => [k.key_id, k.secrets.current])).toEqual([['key_1', 'whsec_one']]);
    expect(b).toBe(a);
    expect(calls.list).toBe(1);
  });

  it('forgets every cached read when a key changes', async () => {
    const stored = [key({ webhook_url: null })];
    const { r, calls } = repo(stored);
    const keys = new RepositoryDeliveryKeys(r, box, 60_000);
    expect(await keys.receivers(5, 'sandbox')).toEqual([]);
    expect(await keys.get('key_1')).toMatchObject({ webhook_url: null });
    stored[0] = key({ webhook_url: 'https://example.com/new' });
    expect(await keys.receivers(5, 'sandbox')).toEqual([]); // within the TTL, nothing told it yet
    keys.keysChanged();
    expect((await keys.receivers(5, 'sandbox')).map((k) => k.webhook_url)).toEqual(['https://example.com/new']);
    expect(await keys.get('key_1')).toMatchObject({ webhook_url: 'https://example.com/new' });
    expect(calls).toEqual({ list: 2, byId: 2 });
  });
});
