import { hasNubanCheckDigit, isValidNuban } from './account-numbers';
import type { PayoutInstitution } from '../payout-accounts/banks';
import { NAME_MATCH_THRESHOLD, nameMatchScore } from './name-match';
import type { InHouseSubmission } from './submission';

/**
 * Whether an in-house KYC submission is approved at once or queued for a reviewer (spec 3.3: "valid
 * Nigerian bank details and no country mismatch" may auto-approve).
 *
 * Auto-approval needs all of: a Nigerian bank, found in the directory with a CBN code, an account number
 * whose NUBAN check digit is right for that code, id_country = bank country, a name enquiry at the
 * mode's verification provider that found the account, and the holder's name it answered matching the
 * legal name (score ≥ NAME_MATCH_THRESHOLD). Anything else goes to manual review and every failed
 * condition is kept as a reason, as evidence for the reviewer:
 *   country_mismatch · not_nigerian_bank · unknown_bank · invalid_nuban · no_check_digit (a mobile-money
 *   operator such as Opay whose account numbers are phone numbers: nothing to verify) · account_not_found ·
 *   name_enquiry_unavailable · name_enquiry_unconfigured (live without a provider) · name_mismatch:<score>
 * The score is written with two decimals, rounded down, so a reason never shows a passing-looking 0.85.
 */

export type ReviewDecision = { decision: 'auto_approve' } | { decision: 'manual_review'; reasons: string[] };

/**
 * What the verification provider's name enquiry said about the bank account (Hardening 2 item 6), kept
 * with the review as evidence. `not_asked`: no enquiry applies (not a Nigerian bank with a CBN code);
 * `unconfigured`: the mode has no provider (live, until one is configured).
 */
export interface NameEnquiryEvidence {
  provider: string | null;
  outcome: 'found' | 'not_found' | 'unavailable' | 'unconfigured' | 'not_asked';
  /** The holder's name as the bank has it; null unless found. */
  account_name: string | null;
}

/** Why an enquiry that did not find the holder keeps a submission from auto-approval. */
const ENQUIRY_REASONS: Partial<Record<NameEnquiryEvidence['outcome'], string>> = {
  not_found: 'account_not_found',
  unavailable: 'name_enquiry_unavailable',
  unconfigured: 'name_enquiry_unconfigured',
};

export interface ReviewInput {
  submission: InHouseSubmission;
  /** The directory entry of the submission's bank; undefined when it is not (or no longer) listed. */
  institution: PayoutInstitution | undefined;
  /** nameMatchScore(legal name, the holder's name: the enquiry's when it found one, else the declared one). */
  nameScore: number;
  /** The name enquiry (absent: as if the declared name had been confirmed, e.g. reviewSubmission). */
  enquiry?: NameEnquiryEvidence;
}

export function decideReview({ submission, institution, nameScore, enquiry }: ReviewInput): ReviewDecision {
  const reasons: string[] = [];
  if (submission.country_mismatch) reasons.push('country_mismatch');
  if (submission.bank_account.country !== 'NG') {
    reasons.push('not_nigerian_bank');
  } else if (!institution?.cbn_code || institution.institution_id !== submission.bank_account.institution_id) {
    reasons.push('unknown_bank');
  } else if (!hasNubanCheckDigit(institution)) {
    reasons.push('no_check_digit');
  } else if (!isValidNuban(institution.cbn_code, submission.bank_account.account_number)) {
    reasons.push('invalid_nuban');
  }
  const enquiryReason = enquiry && ENQUIRY_REASONS[enquiry.outcome];
  if (enquiryReason) reasons.push(enquiryReason);
  if (!(nameScore >= NAME_MATCH_THRESHOLD)) {
    const shown = Number.isFinite(nameScore) ? Math.floor(Math.max(0, nameScore) * 100) / 100 : 0;
    reasons.push(`name_mismatch:${shown.toFixed(2)}`);
  }
  return reasons.length === 0 ? { decision: 'auto_approve' } : { decision: 'manual_review', reasons };
}

/** decideReview with the name score computed from the submission (legal name vs bank account name). */
export function reviewSubmission(
  submission: InHouseSubmission,
  institution: PayoutInstitution | undefined,
): ReviewDecision {
  return decideReview({
    submission,
    institution,
    nameScore: nameMatchScore(submission.legal_name, submission.bank_account.account_name),
  });
}
