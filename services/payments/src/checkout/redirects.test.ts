import { codeOf } from '../errors.test-util';
import { checkRedirectUrl, redirectOrigins, redirectWithSession } from './redirects';
import { effectiveStatus, type SessionRecord } from './session';

const now = new Date('2026-05-01T12:00:00Z');

describe('redirect URLs and expiry', () => {
  it('accepts absolute http(s) only and appends session_id', () => {
    expect(checkRedirectUrl(' https://shop.example/x?a=1 ', 'success_url')).toBe('https://shop.example/x?a=1');
    expect(checkRedirectUrl(undefined, 'success_url')).toBe('');
    for (const bad of ['/x', 'javascript:alert(1)', 'ftp://x.example/', 'https://u:p@x.example/'])
      expect(codeOf(() => checkRedirectUrl(bad, 'success_url'))).toEqual(['VALIDATION_FAILED', 'success_url']);
    expect(redirectWithSession('https://shop.example/x?a=1', 'cs_1')).toBe(
      'https://shop.example/x?a=1&session_id=cs_1',
    );
    expect(codeOf(() => checkRedirectUrl('https://x.example/' + 'a'.repeat(2048), 'cancel_url'))).toEqual([
      'VALIDATION_FAILED',
      'cancel_url',
    ]);
    expect(redirectOrigins(['https://a.example/x', '', 'https://a.example/y', 'http://b.example:8080/'])).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
  });
  it('a pending session past expires_at reads as expired unless an attempt is in flight', () => {
    const s = { status: 'pending', expires_at: new Date(now.getTime() - 1), in_flight: null } as SessionRecord;
    expect(effectiveStatus(s, now)).toBe('expired');
    expect(effectiveStatus({ ...s, expires_at: new Date(now.getTime() + 1) }, now)).toBe('pending');
    expect(effectiveStatus({ ...s, in_flight: { attempt_id: 'a', started_at: now } }, now)).toBe('pending');
    expect(effectiveStatus({ ...s, status: 'completed' }, now)).toBe('completed');
  });
});
