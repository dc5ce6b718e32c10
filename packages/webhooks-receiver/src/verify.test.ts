import { signWebhook, verifyWebhook, WebhookVerificationError, type WebhookVerificationErrorCode } from './index';

const SECRET = 'whsec_saZPg1at77v818d5kAjdGLxVPzyqPyQP';
const OTHER = 'whsec_Tplp3Wo61yl3Ba3gGUnLmraAAtbywumu';
const T = 1774569600;
const at = (seconds: number) => () => seconds * 1000;

const envelope = {
  event_id: 'evt_3f1c2b7e-8a4d-4f0e-9b6a-2d5c1e7f9a01',
  event_type: 'payment.succeeded',
  occurred_at: '2026-03-27T00:00:00.000Z',
  is_live: false,
  sequence: 3,
  data: { charge_id: 'ch_1', amount: 5000 },
};
const BODY = JSON.stringify(envelope);

function delivery(body = BODY, secrets: string | string[] = SECRET, t = T): Record<string, string> {
  return { ...signWebhook(body, secrets, t), 'X-Service-Event-Id': JSON.parse(body).event_id };
}

function codeOf(fn: () => unknown): WebhookVerificationErrorCode | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.code;
    throw err;
  }
  return undefined;
}

describe('verifyWebhook', () => {
  it('returns the typed envelope parsed from the raw bytes', () => {
    const event = verifyWebhook<{ charge_id: string; amount: number }>(BODY, delivery(), SECRET, { now: at(T) });
    expect(event.data.charge_id).toBe('ch_1');
    expect(event.sequence).toBe(3);
    expect(event).toEqual(envelope);
  });

  it('accepts Buffer, Uint8Array views and strings alike', () => {
    const bytes = Buffer.from(`xx${BODY}yy`, 'utf8');
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset + 2, bytes.length - 4);
    for (const raw of [BODY, Buffer.from(BODY), view]) {
      expect(verifyWebhook(raw, delivery(), SECRET, { now: at(T) }).event_id).toBe(envelope.event_id);
    }
  });

  it('reads a WHATWG Headers, lower-case Node headers and mixed-case objects', () => {
    const signed = delivery();
    const lower = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toLowerCase(), v]));
    const upper = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]));
    for (const headers of [new Headers(signed), lower, upper, signed]) {
      expect(verifyWebhook(BODY, headers, SECRET, { now: at(T) }).event_id).toBe(envelope.event_id);
    }
  });

  it('joins a V2 header repeated over several lines (string[] values), as Headers.get does', () => {
    const signed = delivery(BODY, [OTHER, SECRET]);
    const [t, first, second] = signed['X-Service-Signature-V2'].split(',');
    const headers = {
      'x-service-signature-v2': [`${t},${first}`, second],
      'x-service-event-id': envelope.event_id,
      'x-ignored': undefined,
    };
    expect(verifyWebhook(BODY, headers, SECRET, { now: at(T) }).event_id).toBe(envelope.event_id);
  });

  it('accepts any v1 against any secret: old receiver secret during a rotation, or two receiver secrets', () => {
    const rotated = delivery(BODY, [OTHER, SECRET]);
    expect(codeOf(() => verifyWebhook(BODY, rotated, SECRET, { now: at(T) }))).toBeUndefined();
    expect(codeOf(() => verifyWebhook(BODY, rotated, OTHER, { now: at(T) }))).toBeUndefined();
    expect(codeOf(() => verifyWebhook(BODY, delivery(), ['whsec_x', SECRET], { now: at(T) }))).toBeUndefined();
    expect(codeOf(() => verifyWebhook(BODY, delivery(), ['whsec_x'], { now: at(T) }))).toBe('invalid_signature');
  });

  it('applies the tolerance inclusively in both directions', () => {
    const signed = delivery();
    expect(codeOf(() => verifyWebhook(BODY, signed, SECRET, { now: at(T + 300) }))).toBeUndefined();
    expect(codeOf(() => verifyWebhook(BODY, signed, SECRET, { now: at(T - 300) }))).toBeUndefined();
    expect(codeOf(() => verifyWebhook(BODY, signed, SECRET, { now: () => (T + 300) * 1000 + 999 }))).toBeUndefined();
    expect(codeOf(() => verifyWebhook(BODY, signed, SECRET, { now: at(T + 301) }))).toBe('timestamp_too_old');
    expect(codeOf(() => verifyWebhook(BODY, signed, SECRET, { now: at(T - 301) }))).toBe('timestamp_in_future');
    expect(codeOf(() => verifyWebhook(BODY, signed, SECRET, { now: at(T + 10), toleranceSeconds: 5 }))).toBe(
      'timestamp_too_old',
    );
    expect(codeOf(() => verifyWebhook(BODY, signed, SECRET, { now: at(T + 3600), toleranceSeconds: 3600 }))).toBe(
      undefined,
    );
  });

  it('checks the signature before the clock, so a forged stale delivery is invalid_signature', () => {
    expect(codeOf(() => verifyWebhook(BODY, delivery(), OTHER, { now: at(T + 9999) }))).toBe('invalid_signature');
  });

  it('uses Date.now by default', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(codeOf(() => verifyWebhook(BODY, delivery(BODY, SECRET, t), SECRET))).toBeUndefined();
    expect(codeOf(() => verifyWebhook(BODY, delivery(BODY, SECRET, t - 1000), SECRET))).toBe('timestamp_too_old');
  });

  it('requires the timestamped header by default and falls back to the body signature only when allowed', () => {
    const { 'X-Service-Signature': signature } = delivery();
    const bodyOnly = { 'X-Service-Signature': signature, 'X-Service-Event-Id': envelope.event_id };
    expect(() => verifyWebhook(BODY, bodyOnly, SECRET)).toThrow(/requireTimestamp: false/);
    expect(codeOf(() => verifyWebhook(BODY, bodyOnly, SECRET))).toBe('missing_signature');
    expect(verifyWebhook(BODY, bodyOnly, SECRET, { requireTimestamp: false }).event_id).toBe(envelope.event_id);
    expect(codeOf(() => verifyWebhook(BODY, bodyOnly, OTHER, { requireTimestamp: false }))).toBe('invalid_signature');
    const noSignature = { 'X-Service-Event-Id': envelope.event_id };
    expect(codeOf(() => verifyWebhook(BODY, noSignature, SECRET, { requireTimestamp: false }))).toBe(
      'missing_signature',
    );
    const badHex = { ...bodyOnly, 'X-Service-Signature': 'abc' };
    expect(codeOf(() => verifyWebhook(BODY, badHex, SECRET, { requireTimestamp: false }))).toBe('malformed_signature');
  });

  it('still enforces the replay window when requireTimestamp is false but V2 is present', () => {
    expect(codeOf(() => verifyWebhook(BODY, delivery(), SECRET, { requireTimestamp: false, now: at(T + 301) }))).toBe(
      'timestamp_too_old',
    );
  });

  it.each([
    ['no t', (v1: string) => v1],
    ['two t', (v1: string) => `t=${T},t=${T},${v1}`],
    ['t not an integer', (v1: string) => `t=${T}.5,${v1}`],
    ['t negative', (v1: string) => `t=-${T},${v1}`],
    ['no v1', () => `t=${T}`],
    ['v1 too short', () => `t=${T},v1=abcd`],
    ['item without =', (v1: string) => `t=${T},${v1},garbage`],
    ['empty key', (v1: string) => `t=${T},=x,${v1}`],
  ])('rejects a malformed V2 header: %s', (_name, build) => {
    const signed = delivery();
    const v1 = signed['X-Service-Signature-V2'].split(',')[1];
    const headers = { ...signed, 'X-Service-Signature-V2': build(v1) };
    expect(codeOf(() => verifyWebhook(BODY, headers, SECRET, { now: at(T) }))).toBe('malformed_signature');
  });

  it('ignores unknown signature schemes and whitespace, and accepts upper-case hex', () => {
    const signed = delivery();
    const [t, v1] = signed['X-Service-Signature-V2'].split(',');
    const headers = {
      ...signed,
      'X-Service-Signature-V2': ` ${t} , v0=zz, v2=abc , ${v1.toUpperCase().replace('V1', 'v1')}`,
    };
    expect(codeOf(() => verifyWebhook(BODY, headers, SECRET, { now: at(T) }))).toBeUndefined();
  });

  it('treats an empty V2 header as absent', () => {
    const headers = { ...delivery(), 'X-Service-Signature-V2': '  ' };
    expect(codeOf(() => verifyWebhook(BODY, headers, SECRET, { now: at(T) }))).toBe('missing_signature');
  });

  it('rejects a signed body that is not a JSON envelope', () => {
    for (const body of ['not json', '[1,2]', 'null', '{"event_type":"x"}', '{"event_id":1,"event_type":"x"}']) {
      const headers = { ...signWebhook(body, SECRET, T), 'X-Service-Event-Id': 'evt_1' };
      expect([body, codeOf(() => verifyWebhook(body, headers, SECRET, { now: at(T) }))]).toEqual([
        body,
        'malformed_payload',
      ]);
    }
  });

  it('requires X-Service-Event-Id to equal event_id in the body', () => {
    const { 'X-Service-Event-Id': _id, ...withoutId } = delivery();
    expect(() => verifyWebhook(BODY, withoutId, SECRET, { now: at(T) })).toThrow(
      /X-Service-Event-Id header is missing/,
    );
    const other = { ...withoutId, 'X-Service-Event-Id': 'evt_other' };
    expect(codeOf(() => verifyWebhook(BODY, other, SECRET, { now: at(T) }))).toBe('event_id_mismatch');
  });

  it('refuses empty secrets and bad options as programming errors, not verification failures', () => {
    expect(() => verifyWebhook(BODY, delivery(), [])).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, delivery(), '')).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, delivery(), [SECRET, ''])).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, delivery(), SECRET, { toleranceSeconds: -1 })).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, delivery(), SECRET, { toleranceSeconds: NaN })).toThrow(TypeError);
    expect(() => verifyWebhook({} as unknown as string, delivery(), SECRET)).toThrow(TypeError);
  });

  it('reports errors with a stable code and name', () => {
    const err = new WebhookVerificationError('invalid_signature', 'x');
    expect(err).toBeInstanceOf(Error);
    expect([err.name, err.code, err.message]).toEqual(['WebhookVerificationError', 'invalid_signature', 'x']);
  });
});

describe('signWebhook', () => {
  it('signs with the first secret in X-Service-Signature and every secret in V2, newest first', () => {
    const one = signWebhook(BODY, SECRET, T);
    const two = signWebhook(BODY, [OTHER, SECRET], T);
    expect(two['X-Service-Timestamp']).toBe(String(T));
    expect(two['X-Service-Signature']).toBe(signWebhook(BODY, OTHER, T)['X-Service-Signature']);
    expect(two['X-Service-Signature-V2']).toMatch(/^t=1774569600,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(two['X-Service-Signature-V2'].endsWith(one['X-Service-Signature-V2'].split(',')[1])).toBe(true);
  });

  it('wants whole unix seconds', () => {
    for (const t of [Date.now(), -1, 1.5, NaN]) expect(() => signWebhook(BODY, SECRET, t)).toThrow(TypeError);
  });
});
