import type { KycStatus, OutboxEntry } from '@ppay/kernel';
import { appendHistory } from '../cases/case-history';
import { payoutAccountUpdated, submissionUpdated, type Actor, type KycCaseRecord } from '../cases/kyc-case';
import type { KycActionType } from '../cases/kyc-status';
import { payoutDetachedEntry, reconcilePayout } from '../payout-accounts/payout-account';
import type { OperatorCaller, SubMerchant } from '../ports';
import type { KycSubmissionInput } from './submission';

/**
 * The two KYC routes (spec 4.9), one strategy each behind this interface: in-house review for NG, GH,
 * ZA and KE (in-house-route.ts) and connected-account onboarding at the card gateway for every other
 * country (connected-account-route.ts). The routing rule (routing.ts) picks the route from the
 * submission's country; KycSubmissionService hands the normalised submission to it.
 */

export type SubmitResult =
  | { kind: 'in_house'; kyc: KycCaseRecord; message: string }
  | {
      kind: 'connected';
      kyc: KycCaseRecord;
      token: string;
      /** The gateway's publishable key the client secret is used with. */
      publishable_key: string;
      client_secret: string;
      expires_at: Date;
      message: string;
    };

/** The case a route builds, its answer, and the events written with it. */
export interface RouteOutcome {
  result: SubmitResult;
  events: OutboxEntry[];
}

/** One attempt at writing a submission; another follows on the re-read case when the write lost a race. */
export interface SubmissionAttempt<S extends KycSubmissionInput> {
  caller: OperatorCaller;
  merchantId: number;
  sub: SubMerchant;
  input: S;
  /** The merchant's case in the caller's mode; null before its first submission. */
  existing: KycCaseRecord | null;
  /** What the previous attempt built before its write lost the race (null on the first attempt). */
  previous: RouteOutcome | null;
  now: Date;
}

export interface SubmissionRoute<S extends KycSubmissionInput> {
  /**
   * The case after this submission, its answer and events; KYC_TRANSITION_NOT_ALLOWED (409) when the
   * case's status does not allow it. Nothing is written here: the caller writes the outcome.
   */
  attempt(attempt: SubmissionAttempt<S>): Promise<RouteOutcome>;
}

/** What a route decides about the submitted case; submittedCase writes the rest the same way for both. */
export type RouteFields = Pick<
  KycCaseRecord,
  | 'route'
  | 'provider'
  | 'business_type'
  | 'legal_name'
  | 'id_country'
  | 'settlement_currency'
  | 'country_mismatch'
  | 'format'
  | 'owner'
  | 'business'
  | 'bank_account'
  | 'review'
  | 'connected'
  | 'link'
  | 'superseded_links'
  | 'submitted_at'
  | 'reviewed_at'
>;

/** The status change of a submission, as its history entry tells it. */
export interface SubmittedChange {
  action: KycActionType;
  from: KycStatus;
  to: KycStatus;
  actor: Extract<Actor, 'operator' | 'auto'>;
  actor_id: string | null;
  reason: string | null;
}

/**
 * The case after a submission on either route, with its events: the route's fields on the case's
 * identity (kept across resubmissions) and the operator's latest relationship, the change appended to the
 * history, and the payout account detached when the submission moved the settlement currency or route.
 * A submission that changes no status (a new onboarding link while pending_onboarding) sends no event.
 */
export async function submittedCase(
  attempt: SubmissionAttempt<KycSubmissionInput>,
  nextId: () => Promise<number>,
  change: SubmittedChange,
  fields: RouteFields,
): Promise<{ kyc: KycCaseRecord; events: OutboxEntry[] }> {
  const { caller, merchantId, sub, existing, now } = attempt;
  const { payout, detached } = reconcilePayout(existing?.payout ?? null, fields.route, fields.settlement_currency, now);
  const { from, to } = change;
  const kyc: KycCaseRecord = {
    id: existing?.id ?? (await nextId()),
    merchant_id: merchantId,
    mode: caller.mode,
    marketplace_id: sub.marketplace_id,
    business_name: sub.merchant?.business_name ?? existing?.business_name ?? '',
    status: to,
    ...fields,
    payout,
    rejection_reason: null,
    additional_info_request: null,
    ...appendHistory(
      existing,
      {
        action: change.action,
        from_status: from,
        to_status: to,
        actor: change.actor,
        actor_id: change.actor_id,
        reason: change.reason,
        at: now,
      },
      ...(detached ? [payoutDetachedEntry(to, now)] : []),
    ),
    version: (existing?.version ?? 0) + 1,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  const events = from === to ? [] : [submissionUpdated(kyc, from, change.action)];
  if (detached) events.push(payoutAccountUpdated(kyc, 'detached'));
  return { kyc, events };
}
