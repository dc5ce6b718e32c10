import { createHmac, timingSafeEqual } from 'node:crypto';
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
