import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  it('seals secrets with AES-256-GCM and detects tampering', () => {
    const box = new SecretBox(randomBytes(32), 'k1');
    const sealed = box.seal('whsec_abc');
    expect(JSON.stringify(sealed)).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    const tampered = {
      ...sealed,
      data: Buffer.from('x' + Buffer.from(sealed.data, 'base64').toString('latin1').slice(1), 'latin1').toString(
        'base64',
      ),
    };
    expect(() => box.open(tampered)).toThrow();
    expect(() => new SecretBox(randomBytes(32), 'k2').open(sealed)).toThrow(/unknown key/);
    expect(() => new SecretBox(randomBytes(16), 'k1')).toThrow();
  });
});
