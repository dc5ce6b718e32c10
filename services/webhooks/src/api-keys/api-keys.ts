import {
  outboxEvent,
  type SecretBox,
  PlatformError,
  prefixedId,
  SUBJECTS,
  type Mode,
  type OutboxEntry,
  type Subject,
} from '@ppay/kernel';
import { isSupportedApiVersion, LATEST_API_VERSION } from '../webhook-events/api-versions';
import {
  API_KEY_PATTERN,
  generateApiKey,
  generateWebhookSecret,
  maskApiKey,
  secretHint,
  type KeyHasher,
} from './credentials';
import type { ApiKeyRepository } from '../ports';
import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStatus } from './api-key';

export interface CreateApiKeyInput {
  mode: string;
  name?: string;
  webhook_url?: string;
  api_version?: string;
}

const MAX_URL_LENGTH = 2048;

/**
 * Per-merchant quotas of key management (docs/decisions.md, H2-3), counted per mode over keys that are
 * not revoked: keys, and keys with a webhook URL (every one of them receives each of the mode's events).
 */
export const KEY_QUOTAS = { keysPerMode: 20, webhookUrlsPerMode: 16 } as const;
/** Revoked keys GET /api-keys shows besides every unrevoked one: the most recently created. */
export const REVOKED_KEYS_LISTED = 20;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Absolute http(s) URL; live keys need https (loopback excepted, for local receivers). */
export function validateWebhookUrl(raw: string, mode: Mode): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PlatformError('INVALID_WEBHOOK_URL', undefined, { param: 'webhook_url' });
  }
  if (
    raw.length > MAX_URL_LENGTH ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username ||
    url.password
  ) {
    throw new PlatformError('INVALID_WEBHOOK_URL', undefined, { param: 'webhook_url' });
  }
  if (mode === 'live' && url.protocol !== 'https:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new PlatformError('INVALID_WEBHOOK_URL', 'webhook_url must use https for live keys', {
      param: 'webhook_url',
    });
  }
  return url.toString();
}

function validateApiVersion(version: string): string {
  if (!isSupportedApiVersion(version)) {
    throw new PlatformError(
      'UNSUPPORTED_API_VERSION',
      `Unsupported api_version ${JSON.stringify(version)}: use a date up to the latest version ${LATEST_API_VERSION}`,
      { param: 'api_version' },
    );
  }
  return version;
}

function changeEvent(subject: Subject, key: ApiKeyRecord, changes: ApiKeyChanges = {}): OutboxEntry {
  const merged = { ...key, ...changes };
  return outboxEvent(
    subject as typeof SUBJECTS.apiKeyCreated,
    {
      key_id: merged.id,
      merchant_id: merged.merchant_id,
      mode: merged.mode,
      status: merged.status,
      api_version: merged.api_version,
    },
    { merchantId: merged.merchant_id, mode: merged.mode },
  );
}

/** Validates and normalises a webhook URL when saved (the SSRF guard, ssrf.ts `checkWebhookUrl`). */
export type WebhookUrlCheck = (raw: string, mode: Mode) => Promise<string>;

/** API key management (spec 4.8) and authentication (spec 5). */
export class ApiKeyService {
  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly hasher: KeyHasher,
    private readonly secrets: SecretBox,
    private readonly checkUrl: WebhookUrlCheck = async (raw, mode) => validateWebhookUrl(raw, mode),
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(merchantId: number, input: CreateApiKeyInput) {
    if (input.mode !== 'sandbox' && input.mode !== 'live') {
      throw new PlatformError('VALIDATION_FAILED', 'mode must be sandbox or live', { param: 'mode' });
    }
    const mode: Mode = input.mode;
    // Checked before the insert: concurrent creations can pass together, as many as the gateway's
    // rate limit lets through at once; the fan-out never sends one event to more keys anyway.
    const keys = await this.unrevoked(merchantId, mode);
    if (keys.length >= KEY_QUOTAS.keysPerMode) {
      throw new PlatformError('API_KEY_LIMIT_REACHED', undefined, {
        detail: `at most ${KEY_QUOTAS.keysPerMode} active or disabled ${mode} keys per merchant`,
      });
    }
    if (input.webhook_url) this.assertWebhookUrlRoom(keys, mode);
    const webhookUrl = input.webhook_url ? await this.checkUrl(input.webhook_url, mode) : null;
    const apiVersion = input.api_version ? validateApiVersion(input.api_version) : LATEST_API_VERSION;
    const apiKey = generateApiKey(mode);
    const webhookSecret = generateWebhookSecret();
    const now = this.now();
    const record: ApiKeyRecord = {
      id: prefixedId('key'),
      merchant_id: merchantId,
      mode,
      name: input.name?.trim() || `${mode} key`,
      key_hash: this.hasher.hash(apiKey),
      masked_key: maskApiKey(apiKey),
      status: 'active',
      webhook_url: webhookUrl,
      webhook_secret: this.secrets.seal(webhookSecret),
      webhook_secret_hint: secretHint(webhookSecret),
      previous_webhook_secret: null,
      webhook_secret_version: 1,
      api_version: apiVersion,
      created_at: now,
      updated_at: now,
      revoked_at: null,
    };
    await this.repo.insert(record, changeEvent(SUBJECTS.apiKeyCreated, record));
    return { record, apiKey, webhookSecret };
  }

  /**
   * Every key that is not revoked (at most the quota per mode) and the most recent revoked ones, oldest
   * first: bounded however many keys a merchant has revoked.
   */
  async list(merchantId: number): Promise<ApiKeyRecord[]> {
    const [unrevoked, revoked] = await Promise.all([
      this.repo.listUnrevoked(merchantId),
      this.repo.listRevoked(merchantId, REVOKED_KEYS_LISTED),
    ]);
    return [...unrevoked, ...revoked].sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  }

  /** Revoking is permanent and idempotent: revoking a revoked key returns it unchanged. */
  async revoke(merchantId: number, keyId: string): Promise<ApiKeyRecord> {
    const key = await this.get(merchantId, keyId);
    if (key.status === 'revoked') return key;
    const changes: ApiKeyChanges = { status: 'revoked', revoked_at: this.now() };
    return this.apply(key, ['active', 'disabled'], changes, SUBJECTS.apiKeyRevoked);
  }

  /** Flips active ↔ disabled, or sets the given state. A revoked key cannot come back. */
  async toggle(merchantId: number, keyId: string, enabled?: boolean): Promise<ApiKeyRecord> {
    const key = await this.get(merchantId, keyId);
    this.assertNotRevoked(key);
    const target: ApiKeyStatus = (enabled ?? key.status !== 'active') ? 'active' : 'disabled';
    if (target === key.status) return key;
    return this.apply(key, [key.status], { status: target }, SUBJECTS.apiKeyStatusChanged);
  }

  async updateWebhook(
    merchantId: number,
    keyId: string,
    input: { webhook_url?: string; api_version?: string },
  ): Promise<ApiKeyRecord> {
    if (input.webhook_url === undefined && input.api_version === undefined) {
      throw new PlatformError('VALIDATION_FAILED', 'Provide webhook_url and/or api_version');
    }
    const key = await this.get(merchantId, keyId);
    this.assertNotRevoked(key);
    const changes: ApiKeyChanges = {};
    if (input.webhook_url && !key.webhook_url)
      this.assertWebhookUrlRoom(await this.unrevoked(merchantId, key.mode), key.mode);
    if (input.webhook_url !== undefined) {
      changes.webhook_url = input.webhook_url === '' ? null : await this.checkUrl(input.webhook_url, key.mode);
    }
    if (input.api_version !== undefined) changes.api_version = validateApiVersion(input.api_version);
    return this.apply(key, ['active', 'disabled'], changes, SUBJECTS.apiKeyWebhookUpdated);
  }

  /**
   * A new secret, compare-and-set on the secret version: of two concurrent rotations one wins and
   * the other is 409 CONFLICT, so every secret a caller is given is the current one until the next
   * rotation makes it the previous one. `expire_previous` ends the 24 h overlap at once (a leak).
   */
  async regenerateWebhookSecret(merchantId: number, keyId: string, options: { expire_previous?: boolean } = {}) {
    const key = await this.get(merchantId, keyId);
    this.assertNotRevoked(key);
    const webhookSecret = generateWebhookSecret();
    const record = await this.apply(
      key,
      ['active', 'disabled'],
      {
        webhook_secret: this.secrets.seal(webhookSecret),
        webhook_secret_hint: secretHint(webhookSecret),
        // Receivers get 24 h to switch: V2 signatures carry both secrets until then (signing.ts).
        previous_webhook_secret: options.expire_previous
          ? null
          : { secret: key.webhook_secret, rotated_at: this.now() },
        webhook_secret_version: key.webhook_secret_version + 1,
      },
      SUBJECTS.apiKeySecretRotated,
      key.webhook_secret_version,
    );
    return { record, webhookSecret };
  }

  /** Every failure is the same INVALID_API_KEY: callers learn nothing about which keys exist. */
  async authenticate(apiKey: string): Promise<ApiKeyRecord> {
    if (!API_KEY_PATTERN.test(apiKey)) throw new PlatformError('INVALID_API_KEY');
    const key = await this.repo.findByHash(this.hasher.hash(apiKey));
    if (!key || key.status !== 'active') throw new PlatformError('INVALID_API_KEY');
    return key;
  }

  private async get(merchantId: number, keyId: string): Promise<ApiKeyRecord> {
    const key = await this.repo.findForMerchant(merchantId, keyId);
    if (!key) throw new PlatformError('API_KEY_NOT_FOUND', undefined, { param: 'id' });
    return key;
  }

  private async unrevoked(merchantId: number, mode: Mode): Promise<ApiKeyRecord[]> {
    return (await this.repo.listUnrevoked(merchantId)).filter((k) => k.mode === mode);
  }

  /** One more key of the mode may get a webhook URL. */
  private assertWebhookUrlRoom(keys: ApiKeyRecord[], mode: Mode): void {
    if (keys.filter((k) => k.webhook_url).length >= KEY_QUOTAS.webhookUrlsPerMode) {
      throw new PlatformError('WEBHOOK_URL_LIMIT_REACHED', undefined, {
        param: 'webhook_url',
        detail: `at most ${KEY_QUOTAS.webhookUrlsPerMode} ${mode} keys per merchant with a webhook URL`,
      });
    }
  }

  private assertNotRevoked(key: ApiKeyRecord): void {
    if (key.status === 'revoked') throw new PlatformError('API_KEY_REVOKED');
  }

  private async apply(
    key: ApiKeyRecord,
    fromStatuses: ApiKeyStatus[],
    changes: ApiKeyChanges,
    subject: Subject,
    secretVersion?: number,
  ): Promise<ApiKeyRecord> {
    const withTimestamp = { ...changes, updated_at: this.now() } as ApiKeyChanges;
    const updated = await this.repo.update(
      key.merchant_id,
      key.id,
      fromStatuses,
      withTimestamp,
      changeEvent(subject, key, changes),
      secretVersion,
    );
    // Someone changed the key's status (or rotated its secret) between our read and write.
    if (!updated) throw new PlatformError('CONFLICT');
    return updated;
  }
}
