import { maskNumber, type StoredBankAccount } from '../cases/kyc-case';
import { sealBusiness, sealOwner, type StoredOwner } from '../cases/personal-data';
import { nextStatus, type KycActionType } from '../cases/kyc-status';
import type { BankDirectory, PayoutInstitution } from '../payout-accounts/banks';
import type { KycCaseRepository, KycMetrics, Sealer } from '../ports';
import { decideReview, type NameEnquiryEvidence } from './auto-approval';
import { nameMatchScore } from './name-match';
import { askNameEnquiry } from './name-enquiry';
import type { NameEnquiryProviders } from './ports';
import type { InHouseSubmission } from './submission';
import { submittedCase, type RouteOutcome, type SubmissionAttempt, type SubmissionRoute } from './submission-route';

export interface InHouseRouteDeps {
  cases: Pick<KycCaseRepository, 'nextId'>;
  banks: BankDirectory;
  sealer: Sealer;
  /** The bank-account name enquiry of each mode (none configured for live yet). */
  nameEnquiry: NameEnquiryProviders;
  metrics?: Pick<KycMetrics, 'nameEnquiry'>;
}

export const IN_HOUSE_MESSAGES = {
  pending_review: 'KYC submitted successfully. It will be reviewed within 24 hours.',
  approved: 'KYC approved automatically.',
} as const;

/**
 * In-house review (NG, GH, ZA, KE; spec 3.3, 4.9): the submission's evidence is kept on the case with
 * its account and ID numbers sealed, and a first submission that passes auto-approval (auto-approval.ts)
 * is approved at once; anything else, and every resubmission, waits for a reviewer. Auto-approval rests
 * on the verification provider's name enquiry, not on the name typed in the submission: a mode with no
 * provider (live, until one is configured) reviews every submission by hand.
 */
export class InHouseRoute implements SubmissionRoute<InHouseSubmission> {
  constructor(private readonly deps: InHouseRouteDeps) {}

  async attempt(attempt: SubmissionAttempt<InHouseSubmission>): Promise<RouteOutcome> {
    const { input, existing, now } = attempt;
    const from = existing?.status ?? 'not_started';
    const institution = this.deps.banks.findById(input.bank_account.institution_id);
    const enquiry = await this.enquire(attempt, institution);
    const holder = enquiry.account_name ?? input.bank_account.account_name;
    const score = nameMatchScore(input.legal_name, holder);
    const review = decideReview({ submission: input, institution, nameScore: score, enquiry });
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
        business: input.business && sealBusiness(input.business, this.deps.sealer),
        bank_account: this.storedBankAccount(input),
        review: {
          decision: review.decision,
          reasons: review.decision === 'manual_review' ? review.reasons : [],
          name_match_score: Math.round(score * 10_000) / 10_000,
          name_enquiry: enquiry,
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

  /**
   * Who the bank says holds the account, asked of the mode's verification provider (Nigerian banks
   * with a CBN code: NIP name enquiry). Never an error for the submission: without an answer it goes
   * to a reviewer.
   */
  private async enquire(
    { input, caller }: SubmissionAttempt<InHouseSubmission>,
    institution: PayoutInstitution | undefined,
  ): Promise<NameEnquiryEvidence> {
    if (input.bank_account.country !== 'NG' || !institution?.cbn_code) {
      return { provider: null, outcome: 'not_asked', account_name: null };
    }
    return askNameEnquiry(
      this.deps.nameEnquiry,
      {
        institution,
        account_number: input.bank_account.account_number,
        declared_name: input.bank_account.account_name,
        mode: caller.mode,
        deadline: caller.deadline,
      },
      this.deps.metrics,
    );
  }

  private storedOwner({ owner }: InHouseSubmission): StoredOwner {
    return sealOwner(owner, this.deps.sealer, {
      id_number_sealed: this.deps.sealer.seal(owner.id_number),
      id_number_masked: maskNumber(owner.id_number),
    });
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
