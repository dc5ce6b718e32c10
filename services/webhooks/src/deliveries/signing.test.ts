import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROTATION_OVERLAP_MS, signDelivery, signingSecrets } from './signing';

interface Vector {
  name: string;
  body: string;
  secrets: string[];
  timestamp: number;
  headers: Record<string, string>;
}

// The same file the receiver SDK's tests check, so platform and SDK cannot drift apart.
const VECTORS_FILE = join(__dirname, '..', '..', '..', '..', 'packages', 'webhooks-receiver', 'test-vectors.json');
const { vectors } = JSON.parse(readFileSync(VECTORS_FILE, 'utf8')) as { vectors: Vector[] };

describe('signDelivery', () => {
  it('covers single-secret, rotation and unicode vectors', () => {
    expect(vectors.map((v) => v.name)).toEqual(expect.arrayContaining(['basic', 'rotation', 'unicode']));
  });

  it.each(vectors.map((v) => [v.name, v] as const))('matches the shared test vector "%s"', (_name, v) => {
    const [current, previous] = v.secrets;
    expect(signDelivery(v.body, { current, previous }, v.timestamp)).toEqual(v.headers);
  });

  it('signs X-Service-Signature with the current secret only and adds the previous one to V2', () => {
    const one = signDelivery('{}', { current: 'whsec_new' }, 1774569600);
    const two = signDelivery('{}', { current: 'whsec_new', previous: 'whsec_old' }, 1774569600);
    expect(two['X-Service-Signature']).toBe(one['X-Service-Signature']);
    expect(two['X-Service-Signature-V2'].startsWith(one['X-Service-Signature-V2'] + ',v1=')).toBe(true);
    expect(signDelivery('{}', { current: 'whsec_new', previous: 'whsec_new' }, 1774569600)).toEqual(one);
  });

  it('refuses milliseconds, fractions and an empty secret', () => {
    expect(() => signDelivery('{}', { current: 'whsec_x' }, Date.now())).toThrow(RangeError);
    expect(() => signDelivery('{}', { current: 'whsec_x' }, 1.5)).toThrow(RangeError);
    expect(() => signDelivery('{}', { current: '' }, 1)).toThrow(RangeError);
  });
});

describe('signingSecrets', () => {
  const rotatedAt = new Date('2026-03-27T00:00:00Z');
  const previous = { secret: 'whsec_old', rotated_at: rotatedAt };
  const at = (ms: number) => new Date(rotatedAt.getTime() + ms);

  it('keeps the replaced secret for 24 h after a rotation, then drops it', () => {
    expect(signingSecrets('whsec_new', previous, at(0))).toEqual({ current: 'whsec_new', previous: 'whsec_old' });
    expect(signingSecrets('whsec_new', previous, at(ROTATION_OVERLAP_MS - 1)).previous).toBe('whsec_old');
    expect(signingSecrets('whsec_new', previous, at(ROTATION_OVERLAP_MS))).toEqual({ current: 'whsec_new' });
    expect(signingSecrets('whsec_new', null, at(0))).toEqual({ current: 'whsec_new' });
  });
});
