import { PlatformError, type KycStatus, type Mode } from '@ppay/kernel';
import { withDefaults, type Opener, type OperatorCaller, type OperatorUseCaseDeps } from '../ports';
import { payoutChangeDecided } from '../payout-accounts/payout-account';
import { decidedCase, isPayoutChangeAction, reviewActionType, type Decision } from './case-decisions';
import { personalDataOf, reviewResource, submissionUpdated, type Actor, type KycCaseRecord } from './kyc-case';
import { retryLostWrites } from './lost-writes';

export interface KycReviewServiceDeps extends OperatorUseCaseDeps {
  /** Opens the personal data the reviewer reads (the key ring). */
  sealer: Opener;
}

export const SANDBOX_ONLY = 'Sandbox test helpers are only available with sandbox keys';

/**
 * Review decisions on KYC submissions (spec 3.3, 7.2): platform admins work the live review queue; in
 * sandbox the operator's own key drives the same decisions through the sandbox helpers. Sandbox
 * submissions never reach the admin queue, and live ones never the helpers.
 */
export class KycReviewService {
  private readonly deps: Required<KycReviewServiceDeps>;

  constructor(deps: KycReviewServiceDeps) {
    this.deps = withDefaults(deps);
  }

  /**
   * POST /sandbox/kyc/{submission_id}/{approve|reject|request_info|revoke}: the review decisions, driven
   * by the operator's sandbox key on its own sandbox submissions. Anything else is 404.
   */
  async decideInSandbox(caller: OperatorCaller, submissionId: number, decision: Decision): Promise<KycCaseRecord> {
    if (caller.mode !== 'sandbox') throw new PlatformError('PERMISSION_DENIED', SANDBOX_ONLY);
    const found = await this.deps.cases.findById(submissionId);
    if (!found || found.mode !== 'sandbox') throw new PlatformError('KYC_SUBMISSION_NOT_FOUND');
    try {
      await this.deps.directory.activeSubMerchant(caller.operatorId, found.merchant_id, caller.mode, caller.deadline);
    } catch (err) {
      // Another operator's submission is indistinguishable from none.
      if (err instanceof PlatformError && err.code === 'RELATIONSHIP_NOT_FOUND') {
        throw new PlatformError('KYC_SUBMISSION_NOT_FOUND');
      }
      throw err;
    }
    return this.decide(submissionId, 'sandbox', decision, `operator:${caller.operatorId}`, 'sandbox');
  }

  /** Platform admin decision (live submissions only: sandbox ones never reach the review queue). */
  decideAsAdmin(adminId: string, submissionId: number, decision: Decision): Promise<KycCaseRecord> {
    return this.decide(submissionId, 'live', decision, adminId, 'admin');
  }

  /** The live review queue, oldest first. */
  listForReview(status: KycStatus, page: number, limit: number) {
    return this.deps.cases.list('live', status, page, limit);
  }

  /** Live cases whose payout account change waits for review, oldest first. */
  listPayoutChanges(page: number, limit: number) {
    return this.deps.cases.listPayoutChanges('live', page, limit);
  }

  /** The reviewer's view of a case, its personal data opened (null where a key is missing, never a failure). */
  reviewOf(c: KycCaseRecord) {
    return reviewResource(c, personalDataOf(c, this.deps.sealer));
  }

  async getForReview(submissionId: number): Promise<KycCaseRecord> {
    const found = await this.deps.cases.findById(submissionId);
    if (!found || found.mode !== 'live') throw new PlatformError('KYC_SUBMISSION_NOT_FOUND');
    return found;
  }

  private decide(
    submissionId: number,
    mode: Mode,
    decision: Decision,
    actorId: string,
    actor: Actor,
  ): Promise<KycCaseRecord> {
    return retryLostWrites(async () => {
      const c = await this.deps.cases.findById(submissionId);
      if (!c || c.mode !== mode) throw new PlatformError('KYC_SUBMISSION_NOT_FOUND');
      if (isPayoutChangeAction(decision.action)) {
        const decided = payoutChangeDecided(c, decision.action, { actor, actorId }, decision.reason, this.deps.now());
        if (!(await this.deps.cases.save(c.version, decided.kyc, decided.events))) return undefined;
        this.deps.metrics.decided(decision.action, actor, mode);
        return decided.kyc;
      }
      const type = reviewActionType(decision, c.status);
      const next = decidedCase({ ...c, version: c.version + 1, updated_at: this.deps.now() }, type, actor, actorId, {
        reason: type === 'reject' || type === 'revoke' ? (decision.reason ?? '').trim() : null,
        message: type === 'request_info' ? (decision.message ?? '').trim() : null,
      });
      if (!(await this.deps.cases.save(c.version, next, [submissionUpdated(next, c.status, type)]))) return undefined;
      this.deps.metrics.decided(decision.action, actor, mode);
      return next;
    });
  }
}
