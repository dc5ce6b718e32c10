import { randomBytes } from 'node:crypto';
import { SecretBox } from '@ppay/kernel';
import { KEY_QUOTAS, REVOKED_KEYS_LISTED, ApiKeyService } from './api-keys';
import { MemoryApiKeyRepository } from './api-keys.test-util';
import { KeyHasher } from './credentials';

function service() {
  const repo = new MemoryApiKeyRepository();
  let clock = Date.parse('2026-11-01T00:00:00Z');
  const keys = new ApiKeyService(
    repo,
    new KeyHasher(randomBytes(32)),
    new SecretBox(randomBytes(32), 'k1'),
    undefined,
    () => new Date((clock += 1_000)),
  );
  return { repo, keys };
}

describe('ApiKeyService quotas (H2-3)', () => {
  it('allows 20 keys per merchant and mode that are not revoked; the 21st is 409 API_KEY_LIMIT_REACHED', async () => {
    const { keys } = service();
    const created = [];
    for (let i = 0; i < KEY_QUOTAS.keysPerMode; i++) created.push(await keys.create(1, { mode: 'sandbox' }));
    await expect(keys.create(1, { mode: 'sandbox' })).rejects.toMatchObject({
      code: 'API_KEY_LIMIT_REACHED',
      httpStatus: 409,
    });
    // Other modes and merchants have their own count; a revoked key frees its place.
    await expect(keys.create(1, { mode: 'live' })).resolves.toBeDefined();
    await expect(keys.create(2, { mode: 'sandbox' })).resolves.toBeDefined();
    await keys.revoke(1, created[0]!.record.id);
    await expect(keys.create(1, { mode: 'sandbox' })).resolves.toBeDefined();
  });

  it('lists every key that is not revoked and only the most recent revoked ones, however many were revoked', async () => {
    const { keys } = service();
    const kept = [await keys.create(1, { mode: 'sandbox' }), await keys.create(1, { mode: 'live' })];
    await keys.toggle(1, kept[1]!.record.id, false);
    const revoked: string[] = [];
    for (let i = 0; i < 45; i++) {
      const { record } = await keys.create(1, { mode: i % 2 ? 'live' : 'sandbox' });
      await keys.revoke(1, record.id);
      revoked.push(record.id);
    }
    kept.push(await keys.create(1, { mode: 'sandbox' }));
    const listed = await keys.list(1);
    expect(listed).toHaveLength(kept.length + REVOKED_KEYS_LISTED);
    expect(listed.filter((k) => k.status !== 'revoked').map((k) => k.id)).toEqual(kept.map((k) => k.record.id));
    expect(new Set(listed.filter((k) => k.status === 'revoked').map((k) => k.id))).toEqual(
      new Set(revoked.slice(-REVOKED_KEYS_LISTED)),
    );
    const times = listed.map((k) => k.created_at.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Revoked keys never count toward the quota or leave another merchant's list.
    expect(await keys.list(2)).toEqual([]);
  });

  it('allows 16 keys per merchant and mode with a webhook URL; more is 409 WEBHOOK_URL_LIMIT_REACHED', async () => {
    const { keys } = service();
    const url = 'https://hooks.example.com/in';
    const withUrl = [];
    for (let i = 0; i < KEY_QUOTAS.webhookUrlsPerMode; i++) {
      withUrl.push(await keys.create(1, { mode: 'sandbox', webhook_url: url }));
    }
    await expect(keys.create(1, { mode: 'sandbox', webhook_url: url })).rejects.toMatchObject({
      code: 'WEBHOOK_URL_LIMIT_REACHED',
      param: 'webhook_url',
    });
    const bare = await keys.create(1, { mode: 'sandbox' });
    await expect(keys.updateWebhook(1, bare.record.id, { webhook_url: url })).rejects.toMatchObject({
      code: 'WEBHOOK_URL_LIMIT_REACHED',
    });
    // A key that has a URL may change it; clearing one frees a place.
    await expect(
      keys.updateWebhook(1, withUrl[0]!.record.id, { webhook_url: 'https://hooks.example.com/v2' }),
    ).resolves.toMatchObject({ webhook_url: 'https://hooks.example.com/v2' });
    await keys.updateWebhook(1, withUrl[1]!.record.id, { webhook_url: '' });
    await expect(keys.updateWebhook(1, bare.record.id, { webhook_url: url })).resolves.toMatchObject({
      webhook_url: url,
    });
  });
});

describe('webhook secret rotation (H2-10)', () => {
  /** The secrets deliveries sign with now: the current one and, within 24 h of a rotation, the previous. */
  const signingSecrets = (repo: MemoryApiKeyRepository, box: SecretBox, id: string) => {
    const k = repo.keys.get(id)!;
    return [k.webhook_secret, ...(k.previous_webhook_secret ? [k.previous_webhook_secret.secret] : [])].map((s) =>
      box.open(s),
    );
  };

  it('two concurrent rotations never lose a returned secret: one wins, the other is 409 CONFLICT', async () => {
    const repo = new MemoryApiKeyRepository();
    const box = new SecretBox(randomBytes(32), 'k1');
    const keys = new ApiKeyService(repo, new KeyHasher(randomBytes(32)), box);
    const { record, webhookSecret: original } = await keys.create(1, { mode: 'sandbox' });
    const outcomes = await Promise.allSettled([
      keys.regenerateWebhookSecret(1, record.id),
      keys.regenerateWebhookSecret(1, record.id),
    ]);
    const returned = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.webhookSecret] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as { code: string }] : []));
    expect(returned).toHaveLength(1);
    expect(refused.map((e) => e.code)).toEqual(['CONFLICT']);
    // Every secret a caller was given still signs: the new one, and the one it replaced.
    expect(signingSecrets(repo, box, record.id)).toEqual([returned[0], original]);
    expect(repo.keys.get(record.id)!.webhook_secret_version).toBe(2);
  });

  it('expire_previous ends the 24 h overlap at once (after a leak)', async () => {
    const repo = new MemoryApiKeyRepository();
    const box = new SecretBox(randomBytes(32), 'k1');
    const keys = new ApiKeyService(repo, new KeyHasher(randomBytes(32)), box);
    const { record } = await keys.create(1, { mode: 'sandbox' });
    const first = await keys.regenerateWebhookSecret(1, record.id);
    expect(signingSecrets(repo, box, record.id)).toHaveLength(2);
    const second = await keys.regenerateWebhookSecret(1, record.id, { expire_previous: true });
    expect(signingSecrets(repo, box, record.id)).toEqual([second.webhookSecret]);
    expect(second.webhookSecret).not.toBe(first.webhookSecret);
    expect(repo.keys.get(record.id)!.webhook_secret_version).toBe(3);
  });
});
