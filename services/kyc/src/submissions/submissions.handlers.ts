import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { submissionResource } from '../cases/kyc-case';
import { operator, positive } from '../grpc-requests.adapter';
import type { KycSubmissionService } from './kyc-submissions';

type Handlers = UnaryHandlers<types.kyc.KycServiceHandlers>;

/** Submitting KYC and reading its status (spec 2.7, 4.9): decode, call the use case, encode. */
export function submissionHandlers(submissions: KycSubmissionService): Pick<Handlers, 'SubmitKyc' | 'GetKycStatus'> {
  return {
    async SubmitKyc(req, { caller, deadline }) {
      const who = operator(caller, deadline);
      const { merchant_id, ...body } = req;
      const result = await submissions.submit(who, positive(merchant_id, 'merchantId'), body);
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
          publishable_key: result.publishable_key,
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
      return toWire(submissionResource(await submissions.status(operator(caller, deadline), merchantId), merchantId));
    },
  };
}
