import { PlatformError, type KycStatus, type Mode, type OutboxEntry } from '@ppay/kernel';
import { decideReview } from './auto-approval';
import type { BankDirectory } from '../payout-accounts/banks';
import {
  maskNumber,
  submissionUpdated,
  payoutAccountUpdated,
  type Actor,
  type HistoryEntry,
  type KycCaseRecord,
  type PayoutRecord,
} from '../cases/kyc-case';
import {
  KYC_TRANSITIONS,
  nextStatus,
  REJECTION_REASON_MAX,
  REJECTION_REASON_MIN,
  type KycAction,
  type KycActionType,
} from '../cases/kyc-status';
import { nameMatchScore } from './name-match';
import {
  hashToken,
  isLinkToken,
  issueLink,
  linkState,
  withNewLink,
  type LinkState,
} from '../onboarding/onboarding-links';
import {
  NO_METRICS,
  type ConnectedAccountProviders,
  type KycCaseRepository,
  type KycMetrics,
  type Sealer,
  type SubMerchant,
  type SubMerchantDirectory,
} from '../ports';
import type { KycRoute } from './routing';
import { normaliseKycSubmission, type ConnectedSubmission, type InHouseSubmission } from './submission';

/** An operator's partner call: its business id and the mode of its API key. */
export interface OperatorCaller {
  operatorId: number;
  mode: Mode;
  /** The caller's deadline: calls to other services get at most what is left of it. */
  deadline?: Date;
}

export interface KycServiceDeps {
  cases: KycCaseRepository;
  directory: SubMerchantDirectory;
  providers: ConnectedAccountProviders;
  sealer: Sealer;
  banks: BankDirectory;
  metrics?: KycMetrics;
  now?: () => Date;
}

export interface KycServiceOptions {
  /** Lifetime of a hosted onboarding link. */
  linkTtlMs: number;
}

export type SubmitResult =
  | { kind: 'in_house'; kyc: KycCaseRecord; message: string }
  | {
      kind: 'connected';
      kyc: KycCaseRecord;
      token: string;
      client_secret: string;
      expires_at: Date;
      message: string;
    };

export type ReviewAction = 'approve' | 'reject' | 'request_info' | 'revoke';
export const REVIEW_ACTIONS: readonly ReviewAction[] = ['approve', 'reject', 'request_info', 'revoke'];

export interface Decision {
  action: ReviewAction;
  reason?: string;
  message?: string;
}

export const IN_HOUSE_MESSAGES = {
  pending_review: 'KYC submitted successfully. It will be reviewed within 24 hours.',
  approved: 'KYC approved automatically.',
} as const;
export const CONNECTED_MESSAGE = 'Redirect the merchant to onboarding_url to complete onboarding.';
const GATEWAY_DECLINE_REASON = 'Declined by the connected-account gateway';
const MAX_ATTEMPTS = 3;

export const SANDBOX_ONLY = 'Sandbox test helpers are only available with sandbox keys';

function sandboxOnly(mode: Mode): void {
  if (mode !== 'sandbox') throw new PlatformError('PERMISSION_DENIED', SANDBOX_ONLY);
}

function checkReason(reason: unknown): string {
  const text = typeof reason === 'string' ? reason.trim() : '';
  const length = [...text].length;
  if (length < REJECTION_REASON_MIN || length > REJECTION_REASON_MAX) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `reason must be ${REJECTION_REASON_MIN} to ${REJECTION_REASON_MAX} characters`,
      { param: 'reason' },
    );
  }
  return text;
}

/**
 * The payout account no longer fits when a resubmission moves the settlement currency or the route: it
 * is detached (kept in history), so payouts stop until the operator sets up an account again.
 */
export function reconcilePayout(
  payout: PayoutRecord | null,
  route: KycRoute,
  settlementCurrency: string,
  now: Date,
): { payout: PayoutRecord | null; detached: boolean } {
  const account = payout?.account;
  if (!payout || !account) return { payout, detached: false };
  const kind = route === 'in_house' ? 'bank_account' : 'connected_account';
  if (account.kind === kind && account.currency === settlementCurrency) return { payout, detached: false };
  return { payout: { ...payout, account: null, updated_at: now }, detached: true };
}

/**
 * KYC submissions (spec 3.3, 4.9, 7.2): submit and resubmit on both routes, status, review decisions
 * by platform admins (live) and by the sandbox helpers (sandbox), and the hosted onboarding page of the
 * connected-account route. Every operator call first asks marketplace whether the caller is an
 * operator with an active relationship to the merchant.
 */
export class KycService {
  private readonly metrics: KycMetrics;
  private readonly now: () => Date;

  constructor(
    private readonly deps: KycServiceDeps,
    private readonly options: KycServiceOptions,
  ) {
    this.metrics = deps.metrics ?? NO_METRICS;
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * POST /marketplace/merchants/{id}/kyc. Body errors first (spec 7.2 order), then the operator (403)
   * and the active relationship (404), then the status machine (409 with the current status).
   */
  async submit(caller: OperatorCaller, merchantId: number, body: unknown): Promise<SubmitResult> {
    const input = normaliseKycSubmission(body, { banks: this.deps.banks, now: this.now() });
    const sub = await this.deps.directory.activeSubMerchant(
      caller.operatorId,
      merchantId,
      caller.mode,
      caller.deadline,
    );
    let createdAccount: string | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const existing = await this.deps.cases.findByMerchant(merchantId, caller.mode);
      let result: SubmitResult;
      let events: OutboxEntry[];
      if (input.route === 'in_house') {
        ({ result, events } = await this.submitInHouse(caller, merchantId, sub, input, existing));
      } else {
        const provider = this.deps.providers[caller.mode];
        if (!provider) {
          throw new PlatformError(
            'GATEWAY_NOT_CONFIGURED',
            'Connected-account onboarding is not enabled for live keys yet',
            { param: 'country' },
          );
        }
        nextStatus(existing?.status ?? 'not_started', { type: 'start_onboarding' });
        const reuse = existing?.route === 'connected_account' ? existing.connected?.gateway_account_id : undefined;
        const accountId =
          reuse ??
          createdAccount ??
          (
            await provider.createAccount({
              merchantId,
              country: input.country,
              businessType: input.business_type,
              settlementCurrency: input.settlement_currency,
              region: input.gateway_region,
            })
          ).gateway_account_id;
        createdAccount = accountId;
        ({ result, events } = await this.submitConnected(caller, merchantId, sub, input, existing, accountId));
      }
      const saved = existing
        ? await this.deps.cases.save(existing.version, result.kyc, events)
        : await this.deps.cases.insert(result.kyc, events);
      if (saved) {
        this.metrics.submitted(input.route, result.kyc.status, caller.mode);
        return result;
      }
    }
    throw new PlatformError('CONFLICT');
  }

  /** GET /marketplace/merchants/{id}/kyc: null while not_started. */
  async status(caller: OperatorCaller, merchantId: number): Promise<KycCaseRecord | null> {
    await this.deps.directory.activeSubMerchant(caller.operatorId, merchantId, caller.mode, caller.deadline);
    return this.deps.cases.findByMerchant(merchantId, caller.mode);
  }

  /**
   * POST /sandbox/kyc/{submission_id}/{approve|reject|request_info|revoke}: the review decisions, driven
   * by the operator's sandbox key on its own sandbox submissions. Anything else is 404.
   */
  async decideInSandbox(caller: OperatorCaller, submissionId: number, decision: Decision): Promise<KycCaseRecord> {
    sandboxOnly(caller.mode);
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

  async getForReview(submissionId: number): Promise<KycCaseRecord> {
    const found = await this.deps.cases.findById(submissionId);
    if (!found || found.mode !== 'live') throw new PlatformError('KYC_SUBMISSION_NOT_FOUND');
    return found;
  }

  /** The hosted onboarding page: the case behind a link token and the link's state. */
  async onboardingLink(token: string): Promise<{ kyc: KycCaseRecord; state: LinkState; refreshUrl: string }> {
    const found = await this.findLink(token);
    return { kyc: found.kyc, state: found.state, refreshUrl: found.refreshUrl };
  }

  /**
   * The page's form post: complete (the gateway verifies the merchant: pending_onboarding → approved),
   * reject (sandbox only: the gateway declines → rejected) or abandon (status unchanged). The link is
   * used up either way; an expired, used or superseded link changes nothing and leads to refresh_url.
   */
  async finishOnboarding(
    token: string,
    outcome: 'complete' | 'reject' | 'abandon',
  ): Promise<{ state: 'done' | 'expired' | 'used'; redirectUrl: string }> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { kyc: c, state, refreshUrl } = await this.findLink(token);
      if (state !== 'active' || !c.link)
        return { state: state === 'expired' ? 'expired' : 'used', redirectUrl: refreshUrl };
      if (outcome === 'reject' && c.mode !== 'sandbox') {
        throw new PlatformError('VALIDATION_FAILED', 'outcome must be complete or abandon', { param: 'outcome' });
      }
      const now = this.now();
      let next: KycCaseRecord = {
        ...c,
        link: { ...c.link, used_at: now, outcome },
        version: c.version + 1,
        updated_at: now,
      };
      const events: OutboxEntry[] = [];
      if (c.link.purpose === 'onboarding' && outcome !== 'abandon') {
        const action: KycActionType = outcome === 'complete' ? 'complete_onboarding' : 'reject';
        // The submission may have moved on meanwhile (a sandbox helper): then the page only ends.
        if (KYC_TRANSITIONS[action][c.status]) {
          next = this.transition(next, action, 'gateway', c.connected?.gateway_account_id ?? null, {
            reason: outcome === 'reject' ? GATEWAY_DECLINE_REASON : null,
          });
          events.push(submissionUpdated(next, c.status, action));
        }
      }
      if (await this.deps.cases.save(c.version, next, events)) {
        if (events.length) this.metrics.decided(outcome, 'gateway', c.mode);
        return { state: 'done', redirectUrl: c.link.return_url };
      }
    }
    throw new PlatformError('CONFLICT');
  }

  private async findLink(token: string) {
    if (!isLinkToken(token)) throw new PlatformError('ONBOARDING_LINK_NOT_FOUND');
    const hash = hashToken(token);
    const kyc = await this.deps.cases.findByLinkToken(hash);
    if (!kyc || !kyc.link) throw new PlatformError('ONBOARDING_LINK_NOT_FOUND');
    if (kyc.link.token_hash !== hash) {
      const old = kyc.superseded_links.find((l) => l.token_hash === hash);
      if (!old) throw new PlatformError('ONBOARDING_LINK_NOT_FOUND');
      return { kyc, state: 'used' as LinkState, refreshUrl: old.refresh_url };
    }
    return { kyc, state: linkState(kyc.link, this.now()), refreshUrl: kyc.link.refresh_url };
  }

  private async decide(
    submissionId: number,
    mode: Mode,
    decision: Decision,
    actorId: string,
    actor: Actor,
  ): Promise<KycCaseRecord> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const c = await this.deps.cases.findById(submissionId);
      if (!c || c.mode !== mode) throw new PlatformError('KYC_SUBMISSION_NOT_FOUND');
      let type: KycActionType;
      switch (decision.action) {
        case 'approve':
          // On the connected route the gateway's approval is the end of onboarding.
          type = c.status === 'pending_onboarding' ? 'complete_onboarding' : 'approve';
          break;
        case 'revoke':
          checkReason(decision.reason);
          type = 'revoke';
          break;
        case 'reject':
        case 'request_info':
          type = decision.action;
          break;
        default:
          throw new PlatformError('VALIDATION_FAILED', 'action must be approve, reject, request_info or revoke', {
            param: 'action',
          });
      }
      const next = this.transition({ ...c, version: c.version + 1, updated_at: this.now() }, type, actor, actorId, {
        reason: type === 'reject' || type === 'revoke' ? (decision.reason ?? '').trim() : null,
        message: type === 'request_info' ? (decision.message ?? '').trim() : null,
      });
      if (await this.deps.cases.save(c.version, next, [submissionUpdated(next, c.status, type)])) {
        this.metrics.decided(decision.action, actor, mode);
        return next;
      }
    }
    throw new PlatformError('CONFLICT');
  }

  /** The case after a review-type action (status, reviewed_at, reasons, history); throws 409 when illegal. */
  private transition(
    c: KycCaseRecord,
    type: KycActionType,
    actor: Actor,
    actorId: string | null,
    text: { reason?: string | null; message?: string | null },
  ): KycCaseRecord {
    const action: KycAction =
      type === 'reject'
        ? { type, reason: text.reason ?? '' }
        : type === 'request_info'
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
      rejection_reason: type === 'reject' || type === 'revoke' ? (text.reason ?? null) : null,
      additional_info_request: type === 'request_info' ? (text.message ?? null) : null,
      history: [...c.history, entry],
    };
  }

  private async submitInHouse(
    caller: OperatorCaller,
    merchantId: number,
    sub: SubMerchant,
    input: InHouseSubmission,
    existing: KycCaseRecord | null,
  ): Promise<{ result: SubmitResult; events: OutboxEntry[] }> {
    const now = this.now();
    const from: KycStatus = existing?.status ?? 'not_started';
    const institution = this.deps.banks.findById(input.bank_account.institution_id);
    const score = nameMatchScore(input.legal_name, input.bank_account.account_name);
    const review = decideReview({ submission: input, institution, nameScore: score });
    let type: KycActionType;
    if (from === 'rejected' || from === 'additional_info_requested') type = 'resubmit';
    else type = from === 'not_started' && review.decision === 'auto_approve' ? 'auto_approve' : 'submit';
    const to = nextStatus(from, { type });
    const { payout, detached } = reconcilePayout(existing?.payout ?? null, 'in_house', input.settlement_currency, now);
    const { owner, bank_account: bank } = input;
    const kyc: KycCaseRecord = {
      id: existing?.id ?? (await this.deps.cases.nextId()),
      merchant_id: merchantId,
      mode: caller.mode,
      marketplace_id: sub.marketplace_id,
      business_name: sub.merchant?.business_name ?? existing?.business_name ?? '',
      status: to,
      route: 'in_house',
      provider: 'service',
      business_type: input.business_type,
      legal_name: input.legal_name,
      id_country: input.id_country,
      settlement_currency: input.settlement_currency,
      country_mismatch: input.country_mismatch,
      format: input.format,
      owner: {
        first_name: owner.first_name,
        last_name: owner.last_name,
        date_of_birth: owner.date_of_birth,
        phone_number: owner.phone_number,
        email: owner.email,
        id_type: owner.id_type,
        id_number_sealed: this.deps.sealer.seal(owner.id_number),
        id_number_masked: maskNumber(owner.id_number),
        id_document_url: owner.id_document_url,
        selfie_url: owner.selfie_url,
        address: owner.address,
      },
      business: input.business,
      bank_account: {
        country: bank.country,
        institution_id: bank.institution_id,
        bank_name: bank.bank_name,
        account_number_type: bank.account_number_type,
        account_number_sealed: this.deps.sealer.seal(bank.account_number),
        account_number_masked: maskNumber(bank.account_number),
        account_name: bank.account_name,
      },
      review: {
        decision: review.decision,
        reasons: review.decision === 'manual_review' ? review.reasons : [],
        name_match_score: Math.round(score * 10_000) / 10_000,
      },
      connected: null,
      link: existing?.link ?? null,
      superseded_links: existing?.superseded_links ?? [],
      payout,
      submitted_at: now,
      reviewed_at: type === 'auto_approve' ? now : null,
      rejection_reason: null,
      additional_info_request: null,
      history: [
        ...(existing?.history ?? []),
        {
          action: type,
          from_status: from,
          to_status: to,
          actor: type === 'auto_approve' ? 'auto' : 'operator',
          actor_id: type === 'auto_approve' ? null : `operator:${caller.operatorId}`,
          reason: review.decision === 'manual_review' ? review.reasons.join(', ') : null,
          at: now,
        },
        ...(detached ? [this.detachedEntry(to, now)] : []),
      ],
      version: (existing?.version ?? 0) + 1,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    const events = [submissionUpdated(kyc, from, type)];
    if (detached) events.push(payoutAccountUpdated(kyc, 'detached'));
    return {
      result: { kind: 'in_house', kyc, message: IN_HOUSE_MESSAGES[to === 'approved' ? 'approved' : 'pending_review'] },
      events,
    };
  }

  private async submitConnected(
    caller: OperatorCaller,
    merchantId: number,
    sub: SubMerchant,
    input: ConnectedSubmission,
    existing: KycCaseRecord | null,
    gatewayAccountId: string,
  ): Promise<{ result: SubmitResult; events: OutboxEntry[] }> {
    const now = this.now();
    const from: KycStatus = existing?.status ?? 'not_started';
    const to = nextStatus(from, { type: 'start_onboarding' });
    const issued = issueLink({
      purpose: 'onboarding',
      gatewayAccountId,
      returnUrl: input.return_url,
      refreshUrl: input.refresh_url,
      now,
      ttlMs: this.options.linkTtlMs,
    });
    const { payout, detached } = reconcilePayout(
      existing?.payout ?? null,
      'connected_account',
      input.settlement_currency,
      now,
    );
    const reissue = from === 'pending_onboarding';
    const kyc: KycCaseRecord = {
      id: existing?.id ?? (await this.deps.cases.nextId()),
      merchant_id: merchantId,
      mode: caller.mode,
      marketplace_id: sub.marketplace_id,
      business_name: sub.merchant?.business_name ?? existing?.business_name ?? '',
      status: to,
      route: 'connected_account',
      provider: 'gateway',
      business_type: input.business_type,
      legal_name: null,
      id_country: input.country,
      settlement_currency: input.settlement_currency,
      country_mismatch: false,
      format: 'connected',
      owner: null,
      business: null,
      bank_account: null,
      review: null,
      connected: {
        gateway_account_id: gatewayAccountId,
        gateway_region: input.gateway_region,
        country: input.country,
        preferred_currency: input.preferred_currency,
      },
      ...withNewLink({ link: existing?.link ?? null, superseded_links: existing?.superseded_links ?? [] }, issued.link),
      payout,
      submitted_at: reissue && existing ? existing.submitted_at : now,
      reviewed_at: reissue && existing ? existing.reviewed_at : null,
      rejection_reason: null,
      additional_info_request: null,
      history: [
        ...(existing?.history ?? []),
        {
          action: 'start_onboarding',
          from_status: from,
          to_status: to,
          actor: 'operator',
          actor_id: `operator:${caller.operatorId}`,
          reason: reissue ? 'new onboarding link' : null,
          at: now,
        },
        ...(detached ? [this.detachedEntry(to, now)] : []),
      ],
      version: (existing?.version ?? 0) + 1,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    // A new link for a submission already pending onboarding changes no status: no event.
    const events = reissue ? [] : [submissionUpdated(kyc, from, 'start_onboarding')];
    if (detached) events.push(payoutAccountUpdated(kyc, 'detached'));
    return {
      result: {
        kind: 'connected',
        kyc,
        token: issued.token,
        client_secret: issued.client_secret,
        expires_at: issued.link.expires_at,
        message: CONNECTED_MESSAGE,
      },
      events,
    };
  }

  private detachedEntry(status: KycStatus, now: Date): HistoryEntry {
    return {
      action: 'payout_account_detached',
      from_status: status,
      to_status: status,
      actor: 'operator',
      actor_id: null,
      reason: 'the resubmission changed the settlement currency or route',
      at: now,
    };
  }
}
