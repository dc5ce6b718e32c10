import type { KycCaseRecord } from '../cases/kyc-case';
import { retryLostWrites } from '../cases/lost-writes';
import type { BankDirectory } from '../payout-accounts/banks';
import { withDefaults, type OperatorCaller, type OperatorUseCaseDeps } from '../ports';
import { normaliseKycSubmission } from './normalise-submission';
import { ConnectedAccountRoute, type ConnectedAccountRouteDeps } from './connected-account-route';
import { InHouseRoute, type InHouseRouteDeps } from './in-house-route';
import type { ConnectedSubmission, InHouseSubmission, KycSubmissionInput } from './submission';
import type { RouteOutcome, SubmissionAttempt, SubmissionRoute, SubmitResult } from './submission-route';

/** The strategy of each KYC route (submission-route.ts). */
export interface SubmissionRoutes {
  in_house: SubmissionRoute<InHouseSubmission>;
  connected_account: SubmissionRoute<ConnectedSubmission>;
}

/** Both routes over the service's ports. */
export function submissionRoutes(
  deps: InHouseRouteDeps & ConnectedAccountRouteDeps,
  options: { linkTtlMs: number },
): SubmissionRoutes {
  return { in_house: new InHouseRoute(deps), connected_account: new ConnectedAccountRoute(deps, options) };
}

export interface KycSubmissionServiceDeps extends OperatorUseCaseDeps {
  banks: BankDirectory;
  routes: SubmissionRoutes;
}

/**
 * KYC submissions (spec 3.3, 4.9, 7.2): submit and resubmit on either route, and the status the operator
 * sees. Every operator call first asks marketplace whether the caller is an operator with an active
 * relationship to the merchant.
 */
export class KycSubmissionService {
  private readonly deps: Required<KycSubmissionServiceDeps>;

  constructor(deps: KycSubmissionServiceDeps) {
    this.deps = withDefaults(deps);
  }

  /**
   * POST /marketplace/merchants/{id}/kyc. The operator (403) and the active relationship (404) first,
   * then the body's errors (spec 7.2's 400s in their order), then the status machine (409 with the
   * current status): who may ask is settled before what was asked (Hardening 2 item 12).
   */
  async submit(caller: OperatorCaller, merchantId: number, body: unknown): Promise<SubmitResult> {
    const sub = await this.deps.directory.activeSubMerchant(
      caller.operatorId,
      merchantId,
      caller.mode,
      caller.deadline,
    );
    const input = normaliseKycSubmission(body, { banks: this.deps.banks, now: this.deps.now() });
    let previous: RouteOutcome | null = null;
    return retryLostWrites(async () => {
      const existing = await this.deps.cases.findByMerchant(merchantId, caller.mode);
      const attempt = { caller, merchantId, sub, existing, previous, now: this.deps.now() };
      const outcome = await this.attemptOnRoute(attempt, input);
      previous = outcome;
      const { kyc } = outcome.result;
      const saved = existing
        ? await this.deps.cases.save(existing.version, kyc, outcome.events)
        : await this.deps.cases.insert(kyc, outcome.events);
      if (!saved) return undefined;
      this.deps.metrics.submitted(input.route, kyc.status, caller.mode);
      return outcome.result;
    });
  }

  /** GET /marketplace/merchants/{id}/kyc: null while not_started. */
  async status(caller: OperatorCaller, merchantId: number): Promise<KycCaseRecord | null> {
    await this.deps.directory.activeSubMerchant(caller.operatorId, merchantId, caller.mode, caller.deadline);
    return this.deps.cases.findByMerchant(merchantId, caller.mode);
  }

  /** The submission's own route: normaliseKycSubmission already chose it by country (routing.ts). */
  private attemptOnRoute(
    attempt: Omit<SubmissionAttempt<KycSubmissionInput>, 'input'>,
    input: KycSubmissionInput,
  ): Promise<RouteOutcome> {
    return input.route === 'in_house'
      ? this.deps.routes.in_house.attempt({ ...attempt, input })
      : this.deps.routes.connected_account.attempt({ ...attempt, input });
  }
}
