import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signWebhook, verifyWebhook, WebhookVerificationError } from './index';

interface Vectors {
  vectors: {
    name: string;
    body: string;
    body_sha256: string;
    secrets: string[];
    timestamp: number;
    headers: Record<string, string>;
  }[];
  rejections: {
    name: string;
    body: string;
    headers: Record<string, string>;
    secrets: string[];
    now_unix: number;
    error: string;
  }[];
}

// The platform's signer (services/webhooks/src/deliveries/signing.test.ts) asserts against the same file.
const file: Vectors = JSON.parse(readFileSync(join(__dirname, '..', 'test-vectors.json'), 'utf8'));

function withEventId(body: string, headers: Record<string, string>) {
  return { ...headers, 'X-Service-Event-Id': JSON.parse(body).event_id as string };
}

describe('shared test vectors', () => {
  it('has the cases the platform and receivers rely on', () => {
    expect(file.vectors.map((v) => v.name)).toEqual(['basic', 'rotation', 'unicode', 'pretty']);
    expect(file.vectors.find((v) => v.name === 'rotation')!.secrets).toHaveLength(2);
  });

  describe.each(file.vectors)('$name', (v) => {
    it('hashes the body bytes the file describes', () => {
      expect(createHash('sha256').update(v.body, 'utf8').digest('hex')).toBe(v.body_sha256);
    });

    it('signWebhook produces the expected headers', () => {
      expect(signWebhook(v.body, v.secrets, v.timestamp)).toEqual(v.headers);
      expect(signWebhook(Buffer.from(v.body, 'utf8'), v.secrets, v.timestamp)).toEqual(v.headers);
    });

    it('verifyWebhook accepts it with every one of its secrets, alone or together', () => {
      const headers = withEventId(v.body, v.headers);
      const now = () => v.timestamp * 1000;
      for (const secrets of [v.secrets, ...v.secrets.map((s) => [s])]) {
        const event = verifyWebhook(v.body, headers, secrets, { now });
        expect(event).toEqual(JSON.parse(v.body));
      }
    });

    it('the body-only X-Service-Signature verifies with the newest secret only', () => {
      const { 'X-Service-Signature': signature } = v.headers;
      const headers = withEventId(v.body, { 'X-Service-Signature': signature });
      expect(verifyWebhook(v.body, headers, v.secrets[0], { requireTimestamp: false }).event_id).toBe(
        JSON.parse(v.body).event_id,
      );
      for (const old of v.secrets.slice(1)) {
        expect(() => verifyWebhook(v.body, headers, old, { requireTimestamp: false })).toThrow(
          expect.objectContaining({ code: 'invalid_signature' }),
        );
      }
    });
  });

  it.each(file.rejections)('rejects: $name → $error', (r) => {
    let caught: unknown;
    try {
      verifyWebhook(r.body, r.headers, r.secrets, { now: () => r.now_unix * 1000 });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WebhookVerificationError);
    expect((caught as WebhookVerificationError).code).toBe(r.error);
  });
});
