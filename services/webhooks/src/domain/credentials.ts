import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomBase62, type Mode } from '@ppay/kernel';

/**
 * API keys are 32 random base62 characters (~190 bits) after the mode prefix, so a keyed hash
 * (HMAC-SHA256 with a server-side pepper) is enough: no slow KDF is needed against guessing, and
 * a stolen database alone cannot be used to test candidate keys.
 */
export const API_KEY_PATTERN = /^pk_(sandbox|live)_[0-9A-Za-z]{32}$/;
const SECRET_BODY_LENGTH = 32;

export function generateApiKey(mode: Mode): string {
  return `pk_${mode}_${randomBase62(32)}`;
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBase62(SECRET_BODY_LENGTH)}`;
}

export function modeOfApiKey(key: string): Mode | undefined {
  const match = API_KEY_PATTERN.exec(key);
  return match ? (match[1] as Mode) : undefined;
}

export function maskApiKey(key: string): string {
  const prefix = key.startsWith('pk_live_') ? 'pk_live_' : 'pk_sandbox_';
  return `${prefix}${key.slice(prefix.length, prefix.length + 4)}…${key.slice(-4)}`;
}

export function secretHint(secret: string): string {
  return `whsec_…${secret.slice(-4)}`;
}

export class KeyHasher {
  constructor(private readonly pepper: Buffer) {}

  hash(apiKey: string): string {
    return createHmac('sha256', this.pepper).update(apiKey).digest('hex');
  }

  matches(apiKey: string, storedHash: string): boolean {
    const a = Buffer.from(this.hash(apiKey), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

export interface EncryptedSecret {
  /** Which encryption key sealed it, so keys can be rotated. */
  key_id: string;
  iv: string;
  tag: string;
  data: string;
}

/**
 * Webhook secrets are needed in clear to sign deliveries, so they are encrypted at rest with
 * AES-256-GCM rather than hashed. The encryption key comes from config (a Kubernetes Secret).
 */
export class SecretBox {
  constructor(
    private readonly key: Buffer,
    private readonly keyId: string,
  ) {
    if (key.length !== 32) throw new RangeError('secret encryption key must be 32 bytes');
  }

  seal(plaintext: string): EncryptedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      key_id: this.keyId,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }

  open(sealed: EncryptedSecret): string {
    if (sealed.key_id !== this.keyId) throw new Error(`secret sealed with unknown key ${sealed.key_id}`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  }
}
