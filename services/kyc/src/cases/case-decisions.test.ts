import type { KycCaseRecord } from './kyc-case';
import { decidedCase, reviewActionType } from './case-decisions';
import { caught } from '../errors.test-util';

const at = new Date('2026-11-23T10:00:00Z');
const pending = {
  status: 'pending_review',
  reviewed_at: null,
  rejection_reason: null,
  additional_info_request: null,
  history: [],
  updated_at: at,
} as unknown as KycCaseRecord;

describe('reviewActionType', () => {
  it('approving a submission waiting for onboarding completes the onboarding', () => {
    expect(reviewActionType({ action: 'approve' }, 'pending_review')).toBe('approve');
    expect(reviewActionType({ action: 'approve' }, 'pending_onboarding')).toBe('complete_onboarding');
    expect(reviewActionType({ action: 'revoke' }, 'approved')).toBe('revoke');
  });

  it('refuses anything that is not a review action', () => {
    const decision = { action: 'delete' } as unknown as Parameters<typeof reviewActionType>[0];
    expect(caught(() => reviewActionType(decision, 'pending_review'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'action',
    });
  });
});

describe('decidedCase', () => {
  it('records the status, the reason and who decided, at the case’s update time', () => {
    const rejected = decidedCase(pending, 'reject', 'admin', 'usr_1', { reason: 'Blurry document' });
    expect(rejected).toMatchObject({ status: 'rejected', reviewed_at: at, rejection_reason: 'Blurry document' });
    expect(rejected.history).toEqual([
      {
        action: 'reject',
        from_status: 'pending_review',
        to_status: 'rejected',
        actor: 'admin',
        actor_id: 'usr_1',
        reason: 'Blurry document',
        at,
      },
    ]);
    const asked = decidedCase(pending, 'request_info', 'sandbox', 'operator:10', { message: 'Back of the card' });
    expect(asked).toMatchObject({
      status: 'additional_info_requested',
      rejection_reason: null,
      additional_info_request: 'Back of the card',
    });
  });

  it('needs a reason to revoke, before it looks at the status', () => {
    expect(caught(() => decidedCase(pending, 'revoke', 'admin', 'usr_1', { reason: '' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'reason',
    });
    expect(caught(() => decidedCase(pending, 'revoke', 'admin', 'usr_1', { reason: 'Fraud' })).code).toBe(
      'KYC_TRANSITION_NOT_ALLOWED',
    );
  });
});
