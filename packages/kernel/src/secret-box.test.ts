import { randomBytes } from 'node:crypto';
import { isEncryptedSecret, parsePreviousKeys, SecretBox, UnknownSealingKeyError } from './secret-box';

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

describe('SecretBox key ring (Hardening 2 item 9)', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('seals under the current key and opens what any key of the ring sealed', () => {
    const old = new SecretBox(k1, 'k1');
    const sealedBefore = old.seal('1990-05-17');
    const rotated = new SecretBox(k2, 'k2', new Map([['k1', k1]]));
    expect(rotated.open(sealedBefore)).toBe('1990-05-17');
    expect([rotated.isCurrent(sealedBefore), rotated.canOpen(sealedBefore)]).toEqual([false, true]);
    const moved = rotated.reseal(sealedBefore);
    expect(moved.key_id).toBe('k2');
    expect(new SecretBox(k2, 'k2').open(moved)).toBe('1990-05-17');
    expect(rotated.reseal(moved)).toBe(moved); // already current: unchanged
    expect(rotated.seal('x').key_id).toBe('k2');
    const dropped = new SecretBox(k2, 'k2');
    expect(() => dropped.open(sealedBefore)).toThrow(UnknownSealingKeyError);
    expect(dropped.canOpen(sealedBefore)).toBe(false);
    expect(isEncryptedSecret(sealedBefore)).toBe(true);
    expect(isEncryptedSecret({ key_id: 'k1' })).toBe(false);
  });

  it('reads the previous keys from config, refusing anything malformed', () => {
    expect(parsePreviousKeys('')).toEqual(new Map());
    const ring = parsePreviousKeys(` k1:${k1.toString('base64')} , k0:${k2.toString('base64')}`);
    expect([...ring.keys()]).toEqual(['k1', 'k0']);
    expect(ring.get('k1')).toEqual(k1);
    for (const bad of [
      'k1',
      `:${k1.toString('base64')}`,
      'k1:c2hvcnQ=',
      `k1:${k1.toString('base64')},k1:${k2.toString('base64')}`,
    ]) {
      expect(() => parsePreviousKeys(bad)).toThrow(RangeError);
    }
    expect(() => new SecretBox(k1, 'k1', new Map([['k1', k2]]))).toThrow(/both current and previous/);
    expect(() => new SecretBox(k1, 'k2', new Map([['k1', randomBytes(16)]]))).toThrow(/32 bytes/);
  });
});
