import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptedSecret {
  /** Which encryption key sealed it, so keys can be rotated. */
  key_id: string;
  iv: string;
  tag: string;
  data: string;
}

/**
 * Secrets the platform must read back in clear (webhook signing secrets, bank account and ID
 * numbers) are encrypted at rest with AES-256-GCM rather than hashed. The key comes from config (a
 * Kubernetes Secret); `key_id` lets it be rotated.
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
