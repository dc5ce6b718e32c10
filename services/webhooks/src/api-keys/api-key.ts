import type { EncryptedSecret, Mode } from '@ppay/kernel';

export type ApiKeyStatus = 'active' | 'disabled' | 'revoked';

export interface ApiKeyRecord {
  id: string;
  merchant_id: number;
  mode: Mode;
  name: string;
  key_hash: string;
  masked_key: string;
  status: ApiKeyStatus;
  webhook_url: string | null;
  webhook_secret: EncryptedSecret;
  webhook_secret_hint: string;
  /** The secret a rotation replaced, still signing (V2) for 24 h after `rotated_at`; null otherwise. */
  previous_webhook_secret: { secret: EncryptedSecret; rotated_at: Date } | null;
  /** 1 at creation, one more per rotation: rotations compare-and-set on it (0: stored before it existed). */
  webhook_secret_version: number;
  api_version: string;
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
}

export type ApiKeyChanges = Partial<
  Pick<
    ApiKeyRecord,
    | 'status'
    | 'webhook_url'
    | 'webhook_secret'
    | 'webhook_secret_hint'
    | 'previous_webhook_secret'
    | 'webhook_secret_version'
    | 'api_version'
    | 'revoked_at'
  >
>;

/** The key management resource: everything but the hash and the sealed secret. */
export function apiKeyResource(record: ApiKeyRecord) {
  const {
    key_hash: _hash,
    webhook_secret: _secret,
    previous_webhook_secret: _previous,
    webhook_secret_version: _version,
    ...visible
  } = record;
  return { ...visible, is_active: record.status === 'active' };
}
