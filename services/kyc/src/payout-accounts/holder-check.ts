import type { PayoutAccountRecord } from '../cases/kyc-case';
import type { NameEnquiryEvidence } from '../submissions/auto-approval';
import { NAME_MATCH_THRESHOLD, nameMatchScore } from '../submissions/name-match';

/**
 * Whether a bank payout account an operator names may go live at once, or must wait for a reviewer.
 *
 * Two checks, each with its reason:
 *  - the holder name on the account matches the KYC legal name (`name_mismatch:<score>`);
 *  - when the account number (or bank) is new, the bank confirms who holds it: the mode's name enquiry
 *    is asked about the NEW number, and the holder it answers must match the account's holder name
 *    (`bank_name_mismatch:<score>`). No answer is no confirmation: `account_not_found`,
 *    `name_enquiry_unavailable` (failed or timed out) or `name_enquiry_unconfigured` (the mode has no
 *    provider: live, until one is configured). A number typed by the operator is never confirmed by the
 *    name typed next to it.
 * Scores are shown with two decimals, rounded down, so a reason never shows a passing-looking 0.85.
 */

const shown = (score: number) => (Math.floor(Math.max(0, Number.isFinite(score) ? score : 0) * 100) / 100).toFixed(2);

const ENQUIRY_REASONS: Partial<Record<NameEnquiryEvidence['outcome'], string>> = {
  not_found: 'account_not_found',
  unavailable: 'name_enquiry_unavailable',
  unconfigured: 'name_enquiry_unconfigured',
  not_asked: 'name_enquiry_unavailable',
};

/** The holder name against the KYC legal name (the score recorded on the account); null when it matches. */
export function legalNameReason(account: PayoutAccountRecord): string | null {
  const score = account.name_match_score;
  if (score === null || score >= NAME_MATCH_THRESHOLD) return null;
  return `name_mismatch:${shown(score)}`;
}

/**
 * Every reason `account` needs a reviewer; empty when it may go live. `enquiry` is the bank's answer
 * about a new number, null when the number did not change (nothing new to confirm).
 */
export function holderReviewReasons(account: PayoutAccountRecord, enquiry: NameEnquiryEvidence | null): string[] {
  const reasons: string[] = [];
  const legal = legalNameReason(account);
  if (legal) reasons.push(legal);
  if (!enquiry) return reasons;
  if (enquiry.outcome === 'found' && enquiry.account_name !== null) {
    const score = nameMatchScore(enquiry.account_name, account.account_name ?? '');
    if (!(score >= NAME_MATCH_THRESHOLD)) reasons.push(`bank_name_mismatch:${shown(score)}`);
  } else {
    reasons.push(ENQUIRY_REASONS[enquiry.outcome] ?? 'name_enquiry_unavailable');
  }
  return reasons;
}
