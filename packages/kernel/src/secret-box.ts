import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptedSecret {
  /** Which encryption key sealed it, so keys can be rotated. */
  key_id: string;
  iv: string;
  tag: string;
  data: string;
}

/** A value sealed under a key id the box does not hold (a key dropped from the ring too early). */
export class UnknownSealingKeyError extends Error {
  constructor(readonly keyId: string) {
    super(`secret sealed with unknown key ${keyId}`);
    this.name = 'UnknownSealingKeyError';
  }
}

/** Whether `value` has the shape of a sealed secret (the re-encryption job walks documents for them). */
export function isEncryptedSecret(value: unknown): value is EncryptedSecret {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.key_id === 'string' && typeof v.iv === 'string' && typeof v.tag === 'string' && typeof v.data === 'string'
  );
}

/**
 * Secrets the platform must read back in clear (webhook signing secrets, bank account and ID numbers,
 * KYC personal data) are encrypted at rest with AES-256-GCM rather than hashed. The keys come from
 * config (a Kubernetes Secret) as a ring: the current key seals, and every key of the ring opens what
 * it sealed (`key_id`), so a rotation adds a key and re-encrypts at leisure; no read fails because a
 * value is older than the current key.
 */
export class SecretBox {
  private readonly ring: ReadonlyMap<string, Buffer>;

  /**
   * `key`/`keyId`: the current key, which seals. `previous`: older keys by id, which still open what
   * they sealed until it has been re-encrypted (then they can leave the ring).
   */
  constructor(
    private readonly key: Buffer,
    readonly keyId: string,
    previous: ReadonlyMap<string, Buffer> = new Map(),
  ) {
    for (const k of [key, ...previous.values()]) {
      if (k.length !== 32) throw new RangeError('secret encryption key must be 32 bytes');
    }
    if (previous.has(keyId)) throw new RangeError(`key id ${keyId} is both current and previous`);
    this.ring = new Map([...previous, [keyId, key]]);
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
    const key = this.ring.get(sealed.key_id);
    if (!key) throw new UnknownSealingKeyError(sealed.key_id);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  }

  /** Sealed under the current key (nothing to re-encrypt). */
  isCurrent(sealed: EncryptedSecret): boolean {
    return sealed.key_id === this.keyId;
  }

  /** Whether the ring holds the key `sealed` needs. */
  canOpen(sealed: EncryptedSecret): boolean {
    return this.ring.has(sealed.key_id);
  }

  /** The same secret sealed under the current key (unchanged when it already is). */
  reseal(sealed: EncryptedSecret): EncryptedSecret {
    return this.isCurrent(sealed) ? sealed : this.seal(this.open(sealed));
  }
}

/**
 * The previous keys of a ring as configured: `id:base64key` pairs separated by commas (e.g.
 * `SECRETS_ENCRYPTION_PREVIOUS_KEYS=k1:…,k0:…`); empty for none. Throws on a malformed entry, so a
 * service with a broken ring stops at boot rather than failing reads later.
 */
export function parsePreviousKeys(value: string | undefined): Map<string, Buffer> {
  const ring = new Map<string, Buffer>();
  for (const entry of (value ?? '').split(',').map((e) => e.trim())) {
    if (!entry) continue;
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon).trim();
    const key = Buffer.from(entry.slice(colon + 1).trim(), 'base64');
    if (colon < 1 || key.length !== 32 || ring.has(id)) {
      throw new RangeError(`previous encryption key "${id || entry.slice(0, 8)}" must be id:base64 of 32 bytes, once`);
    }
    ring.set(id, key);
  }
  return ring;
}
