import { maskNumber, type StoredBankAccount, type StoredOwner } from '../cases/kyc-case';
import { nextStatus, type KycActionType } from '../cases/kyc-status';
import type { BankDirectory } from '../payout-accounts/banks';
import type { KycCaseRepository, Sealer } from '../ports';
import { decideReview } from './auto-approval';
import { nameMatchScore } from './name-match';
import type { InHouseSubmission } from './submission';
import { submittedCase, type RouteOutcome, type SubmissionAttempt, type SubmissionRoute } from './submission-route';

export interface InHouseRouteDeps {
  cases: Pick<KycCaseRepository, 'nextId'>;
  banks: BankDirectory;
  sealer: Sealer;
}

export const IN_HOUSE_MESSAGES = {
  pending_review: 'KYC submitted successfully. It will be reviewed within 24 hours.',
  approved: 'KYC approved automatically.',
} as const;

/**
 * In-house review (NG, GH, ZA, KE; spec 3.3, 4.9): the submission's evidence is kept on the case with
 * its account and ID numbers sealed, and a first submission that passes auto-approval (auto-approval.ts)
 * is approved at once; anything else, and every resubmission, waits for a reviewer.
 */
export class InHouseRoute implements SubmissionRoute<InHouseSubmission> {
  constructor(private readonly deps: InHouseRouteDeps) {}

  async attempt(attempt: SubmissionAttempt<InHouseSubmission>): Promise<RouteOutcome> {
    const { input, existing, now } = attempt;
    const from = existing?.status ?? 'not_started';
    const institution = this.deps.banks.findById(input.bank_account.institution_id);
    const score = nameMatchScore(input.legal_name, input.bank_account.account_name);
    const review = decideReview({ submission: input, institution, nameScore: score });
    let type: KycActionType;
    if (from === 'rejected' || from === 'additional_info_requested') type = 'resubmit';
    else type = from === 'not_started' && review.decision === 'auto_approve' ? 'auto_approve' : 'submit';
    const to = nextStatus(from, { type });
    const automatic = type === 'auto_approve';
    const { kyc, events } = await submittedCase(
      attempt,
      () => this.deps.cases.nextId(),
      {
        action: type,
        from,
        to,
        actor: automatic ? 'auto' : 'operator',
        actor_id: automatic ? null : `operator:${attempt.caller.operatorId}`,
        reason: review.decision === 'manual_review' ? review.reasons.join(', ') : null,
      },
      {
        route: 'in_house',
        provider: 'service',
        business_type: input.business_type,
        legal_name: input.legal_name,
        id_country: input.id_country,
        settlement_currency: input.settlement_currency,
        country_mismatch: input.country_mismatch,
        format: input.format,
        owner: this.storedOwner(input),
        business: input.business,
        bank_account: this.storedBankAccount(input),
        review: {
          decision: review.decision,
          reasons: review.decision === 'manual_review' ? review.reasons : [],
          name_match_score: Math.round(score * 10_000) / 10_000,
        },
        connected: null,
        link: existing?.link ?? null,
        superseded_links: existing?.superseded_links ?? [],
        submitted_at: now,
        reviewed_at: automatic ? now : null,
      },
    );
    const message = IN_HOUSE_MESSAGES[to === 'approved' ? 'approved' : 'pending_review'];
    return { result: { kind: 'in_house', kyc, message }, events };
  }

  private storedOwner({ owner }: InHouseSubmission): StoredOwner {
    const { id_number, ...rest } = owner;
    return { ...rest, id_number_sealed: this.deps.sealer.seal(id_number), id_number_masked: maskNumber(id_number) };
  }

  private storedBankAccount({ bank_account }: InHouseSubmission): StoredBankAccount {
    const { account_number, ...rest } = bank_account;
    return {
      ...rest,
      account_number_sealed: this.deps.sealer.seal(account_number),
      account_number_masked: maskNumber(account_number),
    };
  }
}
