import { KYC_STATUSES, PlatformError, type KycStatus } from '@ppay/kernel';

/**
 * The transitions between KYC submission statuses (spec 3.3; the statuses are the kernel's KYC_STATUSES,
 * shared with the events and the gateway), as one pure function over a table.
 *
 * Choices where the spec is silent:
 *  - Connected-account route: `start_onboarding` takes not_started to `pending_onboarding` (onboarding
 *    link issued). A merchant who abandons onboarding simply stays there; `start_onboarding` again from
 *    pending_onboarding re-issues an expired link. The gateway's verdict arrives as `complete_onboarding`
 *    (→ approved) or `reject` (→ rejected); a rejected merchant may `start_onboarding` again.
 *  - `submit` is legal from not_started only: a second POST while a review is pending or after approval is
 *    a 409, not a silent overwrite. Rejected / additional_info_requested merchants `resubmit`.
 *  - `auto_approve` is the outcome of a FIRST submission that passes auto-approval (auto-approval.ts), from
 *    not_started only (spec 3.3). A resubmission always goes to a person (rejected / additional_info_requested
 *    → pending_review): a reviewer's rejection must never be undone by the algorithm that let it through.
 *  - `revoke` is an admin action on approved merchants only, and revoked is terminal: revocation is
 *    deliberate, so only a platform admin tool outside this machine could reinstate the merchant.
 *  - Live connected accounts are moved by the card gateway's account events (gateway-accounts/
 *    account-status.ts), through their own `gateway_*` actions so that no admin or sandbox decision gains a
 *    move: `gateway_approve` (onboarding done, or the information asked for given), `gateway_request_info`
 *    (the gateway needs more, also after approval: its requirements change over an account's life),
 *    `gateway_reject` (the gateway refused the account), `gateway_revoke` (the account disconnected the
 *    platform: from any status but revoked, which stays terminal). A gateway rejection is final here as a
 *    reviewer's is: only a new onboarding (`start_onboarding`) leaves it.
 *  - Inputs are validated before the transition: a bad reason (reject, revoke) or message is a 400
 *    whatever the status.
 */

export const KYC_ACTION_TYPES = [
  'submit',
  'auto_approve',
  'approve',
  'reject',
  'request_info',
  'resubmit',
  'revoke',
  'start_onboarding',
  'complete_onboarding',
  'gateway_approve',
  'gateway_request_info',
  'gateway_reject',
  'gateway_revoke',
] as const;
export type KycActionType = (typeof KYC_ACTION_TYPES)[number];

/** The actions that carry a reason (rejections, revocations) or a message (requests for information). */
export type ReasonAction = 'reject' | 'revoke' | 'gateway_reject' | 'gateway_revoke';
export type MessageAction = 'request_info' | 'gateway_request_info';
export const isReasonAction = (t: KycActionType): t is ReasonAction =>
  t === 'reject' || t === 'revoke' || t === 'gateway_reject' || t === 'gateway_revoke';
export const isMessageAction = (t: KycActionType): t is MessageAction =>
  t === 'request_info' || t === 'gateway_request_info';

export type KycAction =
  | { type: Exclude<KycActionType, ReasonAction | MessageAction> }
  | { type: ReasonAction; reason: string }
  | { type: MessageAction; message: string };

/** Legal transitions: action → (from status → to status). */
export const KYC_TRANSITIONS: Readonly<Record<KycActionType, Readonly<Partial<Record<KycStatus, KycStatus>>>>> = {
  submit: { not_started: 'pending_review' },
  auto_approve: { not_started: 'approved' },
  approve: { pending_review: 'approved' },
  reject: { pending_review: 'rejected', pending_onboarding: 'rejected' },
  request_info: { pending_review: 'additional_info_requested' },
  resubmit: { rejected: 'pending_review', additional_info_requested: 'pending_review' },
  revoke: { approved: 'revoked' },
  start_onboarding: {
    not_started: 'pending_onboarding',
    pending_onboarding: 'pending_onboarding',
    rejected: 'pending_onboarding',
  },
  complete_onboarding: { pending_onboarding: 'approved' },
  gateway_approve: { pending_onboarding: 'approved', additional_info_requested: 'approved' },
  gateway_request_info: { pending_onboarding: 'additional_info_requested', approved: 'additional_info_requested' },
  gateway_reject: {
    pending_onboarding: 'rejected',
    additional_info_requested: 'rejected',
    approved: 'rejected',
  },
  gateway_revoke: {
    pending_onboarding: 'revoked',
    additional_info_requested: 'revoked',
    approved: 'revoked',
    rejected: 'revoked',
  },
};

export const REJECTION_REASON_MIN = 3;
export const REJECTION_REASON_MAX = 500;
export const INFO_REQUEST_MAX = 1000;

export function isKycStatus(value: unknown): value is KycStatus {
  return typeof value === 'string' && (KYC_STATUSES as readonly string[]).includes(value);
}

function checkText(value: unknown, param: string, min: number, max: number): void {
  // Counted in characters (code points), after trimming; the raw-length guard keeps huge input cheap.
  const length = typeof value === 'string' && value.length <= max * 4 ? [...value.trim()].length : -1;
  if (length < min || length > max) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be ${min} to ${max} characters`, { param });
  }
}

/**
 * The status after `action`; VALIDATION_FAILED for a bad reason/message, KYC_TRANSITION_NOT_ALLOWED (409,
 * naming the current status in the message and in `detail`) for an illegal move.
 */
export function nextStatus(current: KycStatus, action: KycAction): KycStatus {
  if (isReasonAction(action.type)) {
    checkText((action as { reason: string }).reason, 'reason', REJECTION_REASON_MIN, REJECTION_REASON_MAX);
  }
  if (isMessageAction(action.type)) checkText((action as { message: string }).message, 'message', 1, INFO_REQUEST_MAX);
  const next = KYC_TRANSITIONS[action.type]?.[current];
  if (!next) {
    throw new PlatformError('KYC_TRANSITION_NOT_ALLOWED', `KYC submission is ${current}; cannot ${action.type}`, {
      param: 'status',
      detail: current,
    });
  }
  return next;
}

/** Payouts go only to approved merchants. */
export function isPayoutEligible(status: KycStatus): boolean {
  return status === 'approved';
}
