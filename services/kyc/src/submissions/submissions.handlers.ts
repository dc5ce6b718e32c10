import {
  PlatformError,
  requireAdmin,
  requireInternal,
  requireMerchant,
  requireMode,
  type CallerInfo,
} from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { GatewayAccountService } from '../gateway-accounts/gateway-accounts';
import { payoutAccountResource, reviewResource, submissionResource } from '../cases/kyc-case';
import { REVIEW_ACTIONS, type KycService, type OperatorCaller, type ReviewAction } from './kyc-submissions';
import { isKycStatus } from '../cases/kyc-status';
import { onboardingLinkResource } from '../onboarding/onboarding-links';
import { payoutSettingsResource, type PayoutService } from '../payout-accounts/payout-accounts';

type Handlers = UnaryHandlers<types.kyc.KycServiceHandlers>;

function positive(value: number | undefined, param: string): number {
  if (!value || !Number.isSafeInteger(value) || value < 1) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be a positive integer`, { param });
  }
  return value;
}

/** A partner call: the operator's merchant id and the mode of its API key. */
function operator(caller: CallerInfo, deadline?: Date): OperatorCaller {
  return { operatorId: requireMerchant(caller).merchantId, mode: requireMode(caller), deadline };
}

function reviewAction(value: string): ReviewAction {
  const action = REVIEW_ACTIONS.find((a) => a === value);
  if (!action) {
    throw new PlatformError('VALIDATION_FAILED', `action must be one of ${REVIEW_ACTIONS.join(', ')}`, {
      param: 'action',
    });
  }
  return action;
}

/** Decode, call the use case, encode: the kyc service's gRPC surface (spec 2.7, 2.8, 3.3, 4.9). */
export function kycHandlers(kyc: KycService, payouts: PayoutService, gatewayAccounts: GatewayAccountService): Handlers {
  return {
    async SubmitKyc(req, { caller, deadline }) {
      const who = operator(caller, deadline);
      const { merchant_id, ...body } = req;
      const result = await kyc.submit(who, positive(merchant_id, 'merchantId'), body);
      if (result.kind === 'in_house') {
        return { submission: toWire(submissionResource(result.kyc, result.kyc.merchant_id)), message: result.message };
      }
      const c = result.kyc;
      return {
        onboarding: toWire({
          provider: c.provider,
          submission_id: c.id,
          gateway_account_id: c.connected!.gateway_account_id,
          onboarding_token: result.token,
          client_secret: result.client_secret,
          settlement_currency: c.settlement_currency,
          gateway_region: c.connected!.gateway_region,
          status: c.status,
          expires_at: result.expires_at,
        }),
        message: result.message,
      };
    },
    async GetKycStatus(req, { caller, deadline }) {
      const merchantId = positive(req.merchant_id, 'merchantId');
      return toWire(submissionResource(await kyc.status(operator(caller, deadline), merchantId), merchantId));
    },
    async DecideSandboxKyc(req, { caller, deadline }) {
      const c = await kyc.decideInSandbox(operator(caller, deadline), positive(req.submission_id, 'submission_id'), {
        action: reviewAction(req.action),
        reason: req.reason,
        message: req.message,
      });
      return toWire(submissionResource(c, c.merchant_id));
    },
    async ListPayoutBanks(req, { caller, deadline }) {
      return {
        banks: [...(await payouts.listBanks(requireMerchant(caller).merchantId, req.currency || undefined, deadline))],
      };
    },
    async SetupPayout(req, { caller, deadline }) {
      const { merchant_id, ...body } = req;
      return toWire(
        payoutSettingsResource(
          await payouts.setup(operator(caller, deadline), positive(merchant_id, 'merchantId'), body),
        ),
      );
    },
    async UpdatePayout(req, { caller, deadline }) {
      const { merchant_id, ...body } = req;
      return toWire(
        payoutSettingsResource(
          await payouts.update(operator(caller, deadline), positive(merchant_id, 'merchantId'), body),
        ),
      );
    },
    async ListKycReviews(req, { caller }) {
      requireAdmin(caller);
      const status = req.status || 'pending_review';
      if (!isKycStatus(status) || status === 'not_started') {
        throw new PlatformError('VALIDATION_FAILED', 'status is not a KYC submission status', { param: 'status' });
      }
      const page = req.page?.page || 1;
      const limit = req.page?.limit || 20;
      if (page < 1 || limit < 1 || limit > 100) {
        throw new PlatformError('VALIDATION_FAILED', 'page must be ≥ 1 and limit 1 to 100', { param: 'limit' });
      }
      const { items, total } = await kyc.listForReview(status, page, limit);
      return {
        submissions: items.map((c) => toWire(reviewResource(c))),
        pagination: { page, limit, total, pages: Math.ceil(total / limit) },
      };
    },
    async GetKycReview(req, { caller }) {
      requireAdmin(caller);
      return toWire(reviewResource(await kyc.getForReview(positive(req.submission_id, 'submission_id'))));
    },
    async DecideKyc(req, { caller }) {
      const admin = requireAdmin(caller);
      const c = await kyc.decideAsAdmin(admin.userId, positive(req.submission_id, 'submission_id'), {
        action: reviewAction(req.action),
        reason: req.reason,
        message: req.message,
      });
      return toWire(reviewResource(c));
    },
    // The hosted onboarding page: the link token is the capability, no merchant travels.
    async GetOnboardingLink(req) {
      const { kyc: c, state, refreshUrl } = await kyc.onboardingLink(req.token);
      return toWire(onboardingLinkResource(c, state, refreshUrl));
    },
    async FinishOnboardingLink(req) {
      const outcome = req.outcome;
      if (outcome !== 'complete' && outcome !== 'reject' && outcome !== 'abandon') {
        throw new PlatformError('VALIDATION_FAILED', 'outcome must be complete, reject or abandon', {
          param: 'outcome',
        });
      }
      const { state, redirectUrl } = await kyc.finishOnboarding(req.token, outcome);
      return { state, redirect_url: redirectUrl };
    },
    /** Internal (marketplace payouts): the payout account of one mode, masked. */
    async GetPayoutAccount(req, { caller }) {
      requireInternal(caller);
      if (req.mode !== 'live' && req.mode !== 'sandbox') {
        throw new PlatformError('VALIDATION_FAILED', 'mode must be sandbox or live', { param: 'mode' });
      }
      const { kyc: c, account } = await payouts.account(positive(req.merchant_id, 'merchant_id'), req.mode);
      return toWire(payoutAccountResource(c, account));
    },
    /** Internal (marketplace, delete merchant): balance of the connected account; closed only if zero. */
    async CloseGatewayAccount(req, { caller }) {
      requireInternal(caller);
      if (req.mode !== 'live' && req.mode !== 'sandbox') {
        throw new PlatformError('VALIDATION_FAILED', 'mode must be sandbox or live', { param: 'mode' });
      }
      const res = await gatewayAccounts.closeForDeletion(positive(req.merchant_id, 'merchant_id'), req.mode);
      return toWire({
        found: res.found,
        closed: res.closed,
        available: res.balance?.available ?? null,
        pending: res.balance?.pending ?? null,
        gateway_account_id: res.gateway_account_id,
      });
    },
  };
}
