import { PlatformError, type KycStatus } from '@ppay/kernel';
import { appendHistory } from './case-history';
import type { Actor, HistoryEntry, KycCaseRecord } from './kyc-case';
import { isMessageAction, isReasonAction, nextStatus, type KycAction, type KycActionType } from './kyc-status';

/**
 * Decisions on a submission after it was made: a platform admin's or a sandbox helper's review, and the
 * connected-account gateway's verdict at the end of hosted onboarding.
 */

export type ReviewAction =
  'approve' | 'reject' | 'request_info' | 'revoke' | 'approve_payout_change' | 'reject_payout_change';
export const REVIEW_ACTIONS: readonly ReviewAction[] = [
  'approve',
  'reject',
  'request_info',
  'revoke',
  'approve_payout_change',
  'reject_payout_change',
];

/** Decisions on a payout account change waiting for review, not on the KYC status (Hardening 2 item 5). */
export const isPayoutChangeAction = (a: ReviewAction): a is 'approve_payout_change' | 'reject_payout_change' =>
  a === 'approve_payout_change' || a === 'reject_payout_change';

export interface Decision {
  action: ReviewAction;
  reason?: string;
  message?: string;
}

/** The status-machine action a reviewer's decision is for a case in `status`. */
export function reviewActionType(decision: Decision, status: KycStatus): KycActionType {
  switch (decision.action) {
    case 'approve':
      // On the connected route the gateway's approval is the end of onboarding.
      return status === 'pending_onboarding' ? 'complete_onboarding' : 'approve';
    case 'reject':
    case 'request_info':
    case 'revoke':
      return decision.action;
    default:
      throw new PlatformError('VALIDATION_FAILED', 'action must be approve, reject, request_info or revoke', {
        param: 'action',
      });
  }
}

/**
 * The case after a review-type action (status, reviewed_at, reason or message, history), at `c.updated_at`;
 * VALIDATION_FAILED for a bad reason or message, KYC_TRANSITION_NOT_ALLOWED when the status forbids it.
 */
export function decidedCase(
  c: KycCaseRecord,
  type: KycActionType,
  actor: Actor,
  actorId: string | null,
  text: { reason?: string | null; message?: string | null },
): KycCaseRecord {
  const action: KycAction = isReasonAction(type)
    ? { type, reason: text.reason ?? '' }
    : isMessageAction(type)
      ? { type, message: text.message ?? '' }
      : ({ type } as KycAction);
  const to = nextStatus(c.status, action);
  const now = c.updated_at;
  const entry: HistoryEntry = {
    action: type,
    from_status: c.status,
    to_status: to,
    actor,
    actor_id: actorId,
    reason: text.reason ?? text.message ?? null,
    at: now,
  };
  return {
    ...c,
    status: to,
    reviewed_at: now,
    rejection_reason: isReasonAction(type) ? (text.reason ?? null) : null,
    additional_info_request: isMessageAction(type) ? (text.message ?? null) : null,
    ...appendHistory(c, entry),
  };
}
