import { KYC_STATUSES, type KycStatus } from '@ppay/kernel';
import { caught } from '../errors.test-util';
import {
  isKycStatus,
  isMessageAction,
  isPayoutEligible,
  isReasonAction,
  KYC_ACTION_TYPES,
  KYC_TRANSITIONS,
  nextStatus,
  type KycAction,
  type KycActionType,
} from './kyc-status';

function action(type: KycActionType): KycAction {
  if (isReasonAction(type)) return { type, reason: 'Document is unreadable' };
  if (isMessageAction(type)) return { type, message: 'Please upload the back of the ID card' };
  return { type };
}

/** Every legal move, written out by hand (spec 3.3 plus the connected-account route). */
const LEGAL: [KycStatus, KycActionType, KycStatus][] = [
  ['not_started', 'submit', 'pending_review'],
  ['not_started', 'auto_approve', 'approved'],
  ['pending_review', 'approve', 'approved'],
  ['pending_review', 'reject', 'rejected'],
  ['pending_review', 'request_info', 'additional_info_requested'],
  ['rejected', 'resubmit', 'pending_review'],
  ['additional_info_requested', 'resubmit', 'pending_review'],
  ['approved', 'revoke', 'revoked'],
  ['not_started', 'start_onboarding', 'pending_onboarding'],
  ['pending_onboarding', 'start_onboarding', 'pending_onboarding'],
  ['rejected', 'start_onboarding', 'pending_onboarding'],
  ['pending_onboarding', 'complete_onboarding', 'approved'],
  ['pending_onboarding', 'reject', 'rejected'],
  // A live connected account, moved by the card gateway's account events.
  ['pending_onboarding', 'gateway_approve', 'approved'],
  ['additional_info_requested', 'gateway_approve', 'approved'],
  ['pending_onboarding', 'gateway_request_info', 'additional_info_requested'],
  ['approved', 'gateway_request_info', 'additional_info_requested'],
  ['pending_onboarding', 'gateway_reject', 'rejected'],
  ['additional_info_requested', 'gateway_reject', 'rejected'],
  ['approved', 'gateway_reject', 'rejected'],
  ['pending_onboarding', 'gateway_revoke', 'revoked'],
  ['additional_info_requested', 'gateway_revoke', 'revoked'],
  ['approved', 'gateway_revoke', 'revoked'],
  ['rejected', 'gateway_revoke', 'revoked'],
];

describe('KYC status machine', () => {
  it.each(LEGAL)('%s --%s--> %s', (from, type, to) => {
    expect(nextStatus(from, action(type))).toBe(to);
  });

  it('has exactly the transitions listed above', () => {
    const table = Object.entries(KYC_TRANSITIONS).flatMap(([type, moves]) =>
      Object.entries(moves).map(([from, to]) => [from, type, to]),
    );
    expect(new Set(table.map((t) => t.join(' ')))).toEqual(new Set(LEGAL.map((t) => t.join(' '))));
  });

  const illegal = KYC_STATUSES.flatMap((from) =>
    KYC_ACTION_TYPES.filter((type) => !LEGAL.some(([f, t]) => f === from && t === type)).map(
      (type) => [from, type] as const,
    ),
  );

  it('refuses every other (status, action) pair with a 409 naming both', () => {
    expect(illegal.length).toBe(KYC_STATUSES.length * KYC_ACTION_TYPES.length - LEGAL.length);
    for (const [from, type] of illegal) {
      expect(caught(() => nextStatus(from, action(type)))).toMatchObject({
        code: 'KYC_TRANSITION_NOT_ALLOWED',
        message: `KYC submission is ${from}; cannot ${type}`,
        param: 'status',
        detail: from,
      });
    }
  });

  it('pins the important refusals', () => {
    expect(caught(() => nextStatus('pending_review', { type: 'submit' })).message).toBe(
      'KYC submission is pending_review; cannot submit',
    );
    const refused = (from: KycStatus, type: KycActionType) => caught(() => nextStatus(from, action(type))).code;
    expect(refused('approved', 'approve')).toBe('KYC_TRANSITION_NOT_ALLOWED');
    expect(refused('revoked', 'resubmit')).toBe('KYC_TRANSITION_NOT_ALLOWED');
    expect(refused('pending_review', 'auto_approve')).toBe('KYC_TRANSITION_NOT_ALLOWED');
    // A resubmission goes to a person: a rejection is never overturned automatically.
    expect(refused('rejected', 'auto_approve')).toBe('KYC_TRANSITION_NOT_ALLOWED');
    expect(refused('additional_info_requested', 'auto_approve')).toBe('KYC_TRANSITION_NOT_ALLOWED');
    expect(refused('pending_onboarding', 'approve')).toBe('KYC_TRANSITION_NOT_ALLOWED');
    expect(refused('pending_review', 'revoke')).toBe('KYC_TRANSITION_NOT_ALLOWED');
  });

  it('keeps revoked terminal', () => {
    for (const type of KYC_ACTION_TYPES) expect(() => nextStatus('revoked', action(type))).toThrow();
  });
});

describe('reasons and messages', () => {
  it('needs a rejection reason of 3 to 500 characters', () => {
    expect(nextStatus('pending_review', { type: 'reject', reason: 'abc' })).toBe('rejected');
    expect(nextStatus('pending_review', { type: 'reject', reason: 'é'.repeat(500) })).toBe('rejected');
    for (const reason of ['', 'ab', '  ab  ', 'x'.repeat(501), 42 as unknown as string]) {
      expect(caught(() => nextStatus('pending_review', { type: 'reject', reason }))).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'reason must be 3 to 500 characters',
        param: 'reason',
      });
    }
  });

  it('needs a revocation reason of 3 to 500 characters too', () => {
    expect(nextStatus('approved', { type: 'revoke', reason: 'Chargeback fraud' })).toBe('revoked');
    expect(caught(() => nextStatus('approved', { type: 'revoke', reason: ' no ' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'reason must be 3 to 500 characters',
      param: 'reason',
    });
  });

  it('needs a message to request more information', () => {
    expect(caught(() => nextStatus('pending_review', { type: 'request_info', message: ' ' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'message',
    });
  });

  it('validates the reason before the transition: a bad request is a 400 whatever the status', () => {
    expect(caught(() => nextStatus('approved', { type: 'reject', reason: '' })).code).toBe('VALIDATION_FAILED');
  });
});

describe('helpers', () => {
  it('pays out to approved merchants only', () => {
    for (const s of KYC_STATUSES) expect(isPayoutEligible(s)).toBe(s === 'approved');
  });

  it('recognises statuses', () => {
    expect(isKycStatus('pending_onboarding')).toBe(true);
    expect(isKycStatus('pending')).toBe(false);
    expect(isKycStatus(undefined)).toBe(false);
  });
});
