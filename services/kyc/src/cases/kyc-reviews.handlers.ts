import { PlatformError, requireAdmin } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { operator, positive } from '../grpc-requests.adapter';
import { REVIEW_ACTIONS, type ReviewAction } from './case-decisions';
import { submissionResource } from './kyc-case';
import type { KycReviewService } from './kyc-reviews';
import { isKycStatus } from './kyc-status';

type Handlers = UnaryHandlers<types.kyc.KycServiceHandlers>;

function reviewAction(value: string): ReviewAction {
  const action = REVIEW_ACTIONS.find((a) => a === value);
  if (!action) {
    throw new PlatformError('VALIDATION_FAILED', `action must be one of ${REVIEW_ACTIONS.join(', ')}`, {
      param: 'action',
    });
  }
  return action;
}

/** Review decisions (spec 3.3): the sandbox helpers and the platform admin's queue. */
export function kycReviewHandlers(
  reviews: KycReviewService,
): Pick<Handlers, 'DecideSandboxKyc' | 'ListKycReviews' | 'GetKycReview' | 'DecideKyc'> {
  return {
    async DecideSandboxKyc(req, { caller, deadline }) {
      const c = await reviews.decideInSandbox(
        operator(caller, deadline),
        positive(req.submission_id, 'submission_id'),
        { action: reviewAction(req.action), reason: req.reason, message: req.message },
      );
      return toWire(submissionResource(c, c.merchant_id));
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
      const { items, total } = req.payout_change_pending
        ? await reviews.listPayoutChanges(page, limit)
        : await reviews.listForReview(status, page, limit);
      return {
        submissions: items.map((c) => toWire(reviews.reviewOf(c))),
        pagination: { page, limit, total, pages: Math.ceil(total / limit) },
      };
    },
    async GetKycReview(req, { caller }) {
      requireAdmin(caller);
      return toWire(reviews.reviewOf(await reviews.getForReview(positive(req.submission_id, 'submission_id'))));
    },
    async DecideKyc(req, { caller }) {
      const admin = requireAdmin(caller);
      const c = await reviews.decideAsAdmin(admin.userId, positive(req.submission_id, 'submission_id'), {
        action: reviewAction(req.action),
        reason: req.reason,
        message: req.message,
      });
      return toWire(reviews.reviewOf(c));
    },
  };
}
